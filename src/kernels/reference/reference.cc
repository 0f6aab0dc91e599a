// Plain C++ loops for every op kind a workload can have, plus the epilogue: slow and obviously correct.
// Accumulation is in double so the reference is the more accurate side of every comparison.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include "kernels/provider.h"

namespace tensorperf::kernels {
namespace {

using ir::Attrs;
using ir::OpKind;
using ir::Shape;
using Inputs = std::vector<const HostTensor*>;

// Row-major strides of `shape`, right-aligned into `rank` dims; broadcast (size-1 or missing) dims get 0.
std::vector<int64_t> broadcast_strides(const Shape& shape, size_t rank) {
  std::vector<int64_t> strides(rank, 0);
  int64_t s = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    size_t src = shape.size() - 1 - i;
    size_t dst = rank - 1 - i;
    strides[dst] = shape[src] == 1 ? 0 : s;
    s *= shape[src];
  }
  return strides;
}

// Calls f(flat output index, flat index into each of `operands`) for every output element.
void for_each_broadcast(const Shape& out, const std::vector<Shape>& operands,
                        const std::function<void(int64_t, const std::vector<int64_t>&)>& f) {
  std::vector<std::vector<int64_t>> strides;
  for (const Shape& s : operands) strides.push_back(broadcast_strides(s, out.size()));
  int64_t n = 1;
  for (int64_t d : out) n *= d;
  std::vector<int64_t> idx(out.size(), 0), offs(operands.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    f(i, offs);
    for (size_t d = out.size(); d-- > 0;) {
      ++idx[d];
      for (size_t k = 0; k < operands.size(); ++k) offs[k] += strides[k][d];
      if (idx[d] < out[d]) break;
      for (size_t k = 0; k < operands.size(); ++k) offs[k] -= strides[k][d] * out[d];
      idx[d] = 0;
    }
  }
}

double activation(const std::string& op, double v) {
  if (op == "relu") return std::max(v, 0.0);
  if (op == "relu6") return std::clamp(v, 0.0, 6.0);
  if (op == "sigmoid") return 1.0 / (1.0 + std::exp(-v));
  if (op == "tanh") return std::tanh(v);
  if (op == "gelu") return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
  throw std::logic_error("reference: unknown activation '" + op + "'");
}

Status unary(const std::string& op, const Inputs& in, HostTensor& out) {
  const float* x = in[0]->f32();
  for (int64_t i = 0; i < out.num_elements(); ++i) out.f32()[i] = static_cast<float>(activation(op, x[i]));
  return Status::Ok();
}

Status binary(bool is_add, const Inputs& in, HostTensor& out) {
  const float* a = in[0]->f32();
  const float* b = in[1]->f32();
  float* o = out.f32();
  for_each_broadcast(out.type().shape, {in[0]->type().shape, in[1]->type().shape},
                     [&](int64_t i, const std::vector<int64_t>& k) { o[i] = is_add ? a[k[0]] + b[k[1]] : a[k[0]] * b[k[1]]; });
  return Status::Ok();
}

Status batch_norm(const Attrs& attrs, const Inputs& in, HostTensor& out) {
  const Shape& s = in[0]->type().shape;
  double eps = attrs.get_float("epsilon", 1e-5);
  int64_t n = s[0], c = s[1], inner = 1;
  for (size_t d = 2; d < s.size(); ++d) inner *= s[d];
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch) {
      double scale = in[1]->f32()[ch] / std::sqrt(static_cast<double>(in[4]->f32()[ch]) + eps);
      double shift = in[2]->f32()[ch] - in[3]->f32()[ch] * scale;
      int64_t base = (b * c + ch) * inner;
      for (int64_t i = 0; i < inner; ++i) out.f32()[base + i] = static_cast<float>(in[0]->f32()[base + i] * scale + shift);
    }
  return Status::Ok();
}

Status conv2d(const Attrs& attrs, const Inputs& in, HostTensor& out) {
  const Shape& xs = in[0]->type().shape;
  const Shape& ws = in[1]->type().shape;
  const Shape& os = out.type().shape;
  auto strides = attrs.get_ints("strides", {1, 1});
  auto pads = attrs.get_ints("pads", {0, 0, 0, 0});
  auto dil = attrs.get_ints("dilations", {1, 1});
  int64_t groups = attrs.get_int("groups", 1);
  int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3], O = ws[0], Cg = ws[1], KH = ws[2], KW = ws[3];
  int64_t OH = os[2], OW = os[3], Og = O / groups;
  const float* x = in[0]->f32();
  const float* w = in[1]->f32();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t oy = 0; oy < OH; ++oy)
        for (int64_t ox = 0; ox < OW; ++ox) {
          double acc = 0;
          for (int64_t rc = 0; rc < Cg; ++rc) {
            int64_t c = (o / Og) * Cg + rc;
            for (int64_t ky = 0; ky < KH; ++ky) {
              int64_t iy = oy * strides[0] + ky * dil[0] - pads[0];
              if (iy < 0 || iy >= H) continue;
              for (int64_t kx = 0; kx < KW; ++kx) {
                int64_t ix = ox * strides[1] + kx * dil[1] - pads[1];
                if (ix < 0 || ix >= W) continue;
                acc += static_cast<double>(x[((n * C + c) * H + iy) * W + ix]) * w[((o * Cg + rc) * KH + ky) * KW + kx];
              }
            }
          }
          out.f32()[((n * O + o) * OH + oy) * OW + ox] = static_cast<float>(acc);
        }
  return Status::Ok();
}

// out[b, m, n] = sum_k A[b, m, k] * B[b, k, n], with A/B possibly transposed and batch-broadcast.
Status batched_product(const Inputs& in, HostTensor& out, bool ta, bool tb, bool b_is_dense_weight) {
  const Shape& as = in[0]->type().shape;
  const Shape& bs = in[1]->type().shape;
  const Shape& os = out.type().shape;
  int64_t N = os.back();
  if (b_is_dense_weight) {  // dense: x[..., K] rows, w[N, K]
    int64_t K = as.back(), rows = in[0]->num_elements() / K;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < N; ++j) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k) acc += static_cast<double>(in[0]->f32()[r * K + k]) * in[1]->f32()[j * K + k];
        out.f32()[r * N + j] = static_cast<float>(acc);
      }
    return Status::Ok();
  }
  int64_t M = os[os.size() - 2], K = ta ? as[as.size() - 2] : as.back();
  Shape batch(os.begin(), os.end() - 2), abatch(as.begin(), as.end() - 2), bbatch(bs.begin(), bs.end() - 2);
  int64_t a_mat = as[as.size() - 2] * as.back(), b_mat = bs[bs.size() - 2] * bs.back();
  const float* A = in[0]->f32();
  const float* B = in[1]->f32();
  for_each_broadcast(batch, {abatch, bbatch}, [&](int64_t bi, const std::vector<int64_t>& k) {
    const float* a = A + k[0] * a_mat;
    const float* b = B + k[1] * b_mat;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double acc = 0;
        for (int64_t r = 0; r < K; ++r) {
          float av = ta ? a[r * M + i] : a[i * K + r];
          float bv = tb ? b[j * K + r] : b[r * N + j];
          acc += static_cast<double>(av) * bv;
        }
        out.f32()[(bi * M + i) * N + j] = static_cast<float>(acc);
      }
  });
  return Status::Ok();
}

Status pool2d(OpKind op, const Attrs& attrs, const Inputs& in, HostTensor& out) {
  const Shape& xs = in[0]->type().shape;
  const Shape& os = out.type().shape;
  int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3], OH = os[2], OW = os[3];
  bool global = op == OpKind::kGlobalAvgPool2d;
  auto kernel = global ? std::vector<int64_t>{H, W} : attrs.get_ints("kernel", {1, 1});
  auto strides = attrs.get_ints("strides", {1, 1});
  auto pads = attrs.get_ints("pads", {0, 0, 0, 0});
  auto dil = attrs.get_ints("dilations", {1, 1});
  bool include_pad = attrs.get_int("count_include_pad", 0) != 0;
  bool is_max = op == OpKind::kMaxPool2d;
  for (int64_t nc = 0; nc < N * C; ++nc)
    for (int64_t oy = 0; oy < OH; ++oy)
      for (int64_t ox = 0; ox < OW; ++ox) {
        double acc = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
        int64_t count = 0;
        for (int64_t ky = 0; ky < kernel[0]; ++ky)
          for (int64_t kx = 0; kx < kernel[1]; ++kx) {
            int64_t iy = oy * strides[0] + ky * (is_max ? dil[0] : 1) - pads[0];
            int64_t ix = ox * strides[1] + kx * (is_max ? dil[1] : 1) - pads[1];
            if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
            double v = in[0]->f32()[(nc * H + iy) * W + ix];
            acc = is_max ? std::max(acc, v) : acc + v;
            ++count;
          }
        if (!is_max) {
          if (include_pad) {  // PyTorch: the window clipped to the padded input, not to the input
            int64_t y0 = oy * strides[0] - pads[0], x0 = ox * strides[1] - pads[1];
            int64_t y1 = std::min(y0 + kernel[0], H + pads[2]), x1 = std::min(x0 + kernel[1], W + pads[3]);
            count = (y1 - y0) * (x1 - x0);
          }
          acc = count > 0 ? acc / static_cast<double>(count) : 0.0;
        }
        out.f32()[(nc * OH + oy) * OW + ox] = static_cast<float>(acc);
      }
  return Status::Ok();
}

// Splits a shape at `axis` into (outer, inner) element counts.
std::pair<int64_t, int64_t> split_at(const Shape& s, int64_t axis) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d) (d < axis ? outer : inner) *= s[d];
  return {outer, inner};
}

Status softmax(const Attrs& attrs, const Inputs& in, HostTensor& out) {
  const Shape& s = in[0]->type().shape;
  int64_t axis = attrs.get_int("axis", -1);
  if (axis < 0) axis += static_cast<int64_t>(s.size());
  int64_t len = s[axis];
  auto [outer, rest] = split_at(s, axis);
  int64_t inner = rest / len;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const float* x = in[0]->f32() + o * rest + i;
      float* y = out.f32() + o * rest + i;
      double mx = -std::numeric_limits<double>::infinity(), sum = 0;
      for (int64_t k = 0; k < len; ++k) mx = std::max(mx, static_cast<double>(x[k * inner]));
      for (int64_t k = 0; k < len; ++k) sum += std::exp(x[k * inner] - mx);
      for (int64_t k = 0; k < len; ++k) y[k * inner] = static_cast<float>(std::exp(x[k * inner] - mx) / sum);
    }
  return Status::Ok();
}

Status layer_norm(const Attrs& attrs, const Inputs& in, HostTensor& out) {
  const Shape& s = in[0]->type().shape;
  int64_t axis = attrs.get_int("axis", -1);
  if (axis < 0) axis += static_cast<int64_t>(s.size());
  double eps = attrs.get_float("epsilon", 1e-5);
  auto [outer, inner] = split_at(s, axis);
  for (int64_t o = 0; o < outer; ++o) {
    const float* x = in[0]->f32() + o * inner;
    double mean = 0, var = 0;
    for (int64_t i = 0; i < inner; ++i) mean += x[i];
    mean /= static_cast<double>(inner);
    for (int64_t i = 0; i < inner; ++i) var += (x[i] - mean) * (x[i] - mean);
    var /= static_cast<double>(inner);
    double rstd = 1.0 / std::sqrt(var + eps);
    for (int64_t i = 0; i < inner; ++i)
      out.f32()[o * inner + i] = static_cast<float>((x[i] - mean) * rstd * in[1]->f32()[i] + in[2]->f32()[i]);
  }
  return Status::Ok();
}

// Applies the epilogue in place; `extra` are the epilogue tensors in kernel_input_types order.
void apply_epilogue(const ir::Workload& w, const Inputs& extra, HostTensor& out) {
  const Shape& s = out.type().shape;
  size_t next = 0;
  for (const std::string& op : w.epilogue) {
    float* o = out.f32();
    if (op == "bias") {
      const float* b = extra[next++]->f32();
      bool per_channel = w.op == OpKind::kConv2d;
      int64_t inner = per_channel ? s[2] * s[3] : 1, len = per_channel ? s[1] : s.back();
      for (int64_t i = 0; i < out.num_elements(); ++i) o[i] += b[(i / inner) % len];
    } else if (op == "add" || op == "mul") {
      const float* t = extra[next++]->f32();
      for (int64_t i = 0; i < out.num_elements(); ++i) o[i] = op == "add" ? o[i] + t[i] : o[i] * t[i];
    } else {
      for (int64_t i = 0; i < out.num_elements(); ++i) o[i] = static_cast<float>(activation(op, o[i]));
    }
  }
}

using RefFn = std::function<Status(const ir::Workload&, const Inputs&, HostTensor&)>;

const std::map<OpKind, RefFn>& reference_table() {
  static const std::map<OpKind, RefFn> table = {
      {OpKind::kConv2d, [](auto& w, auto& in, auto& out) { return conv2d(w.attrs, in, out); }},
      {OpKind::kDense, [](auto&, auto& in, auto& out) { return batched_product(in, out, false, false, true); }},
      {OpKind::kMatmul,
       [](auto& w, auto& in, auto& out) {
         return batched_product(in, out, w.attrs.get_int("transpose_a", 0), w.attrs.get_int("transpose_b", 0), false);
       }},
      {OpKind::kBatchMatmul,
       [](auto& w, auto& in, auto& out) {
         return batched_product(in, out, w.attrs.get_int("transpose_a", 0), w.attrs.get_int("transpose_b", 0), false);
       }},
      {OpKind::kMaxPool2d, [](auto& w, auto& in, auto& out) { return pool2d(w.op, w.attrs, in, out); }},
      {OpKind::kAvgPool2d, [](auto& w, auto& in, auto& out) { return pool2d(w.op, w.attrs, in, out); }},
      {OpKind::kGlobalAvgPool2d, [](auto& w, auto& in, auto& out) { return pool2d(w.op, w.attrs, in, out); }},
      {OpKind::kAdd, [](auto&, auto& in, auto& out) { return binary(true, in, out); }},
      {OpKind::kMul, [](auto&, auto& in, auto& out) { return binary(false, in, out); }},
      {OpKind::kRelu, [](auto&, auto& in, auto& out) { return unary("relu", in, out); }},
      {OpKind::kRelu6, [](auto&, auto& in, auto& out) { return unary("relu6", in, out); }},
      {OpKind::kSigmoid, [](auto&, auto& in, auto& out) { return unary("sigmoid", in, out); }},
      {OpKind::kTanh, [](auto&, auto& in, auto& out) { return unary("tanh", in, out); }},
      {OpKind::kGelu, [](auto&, auto& in, auto& out) { return unary("gelu", in, out); }},
      {OpKind::kBatchNorm, [](auto& w, auto& in, auto& out) { return batch_norm(w.attrs, in, out); }},
      {OpKind::kSoftmax, [](auto& w, auto& in, auto& out) { return softmax(w.attrs, in, out); }},
      {OpKind::kLayerNorm, [](auto& w, auto& in, auto& out) { return layer_norm(w.attrs, in, out); }},
  };
  return table;
}

}  // namespace

Status run_reference(const ir::Workload& w, const Inputs& inputs, HostTensor& output) {
  auto it = reference_table().find(w.op);
  if (it == reference_table().end())
    return Status::Unsupported(std::string("no reference kernel for op '") + std::string(ir::op_name(w.op)) +
                               "': layout ops are data movement, not workloads");
  std::vector<ir::TensorType> types = kernel_input_types(w);
  if (inputs.size() != types.size())
    return Status::InvalidArgument("reference: workload takes " + std::to_string(types.size()) + " inputs, got " +
                                   std::to_string(inputs.size()));
  for (size_t i = 0; i < types.size(); ++i)
    if (!(inputs[i]->type() == types[i]))
      return Status::InvalidArgument("reference: input " + std::to_string(i) + " is " + inputs[i]->type().to_string() +
                                     ", expected " + types[i].to_string());
  if (!(output.type() == w.output))
    return Status::InvalidArgument("reference: output is " + output.type().to_string() + ", expected " +
                                   w.output.to_string());
  Inputs main(inputs.begin(), inputs.begin() + static_cast<long>(w.inputs.size()));
  Inputs extra(inputs.begin() + static_cast<long>(w.inputs.size()), inputs.end());
  TP_RETURN_IF_ERROR(it->second(w, main, output));
  apply_epilogue(w, extra, output);
  return Status::Ok();
}

}  // namespace tensorperf::kernels
