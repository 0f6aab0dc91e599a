// max_pool2d, avg_pool2d: x[N,C,H,W] -> [N,C,OH,OW] with PyTorch's output-size rule (ceil_mode drops a
// last window that would start inside the right/bottom padding). global_avg_pool2d -> [N,C,1,1].
#include <string>

#include "ir/ops/op_rules.h"

namespace tensorperf::ir::ops {

namespace {

int64_t pooled_size(int64_t in, int64_t k, int64_t s, int64_t pad_begin, int64_t pad_end, int64_t d, bool ceil_mode) {
  int64_t span = in + pad_begin + pad_end - d * (k - 1) - 1;
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + pad_begin) --out;
  return out;
}

}  // namespace

Result<Types> infer_pool(OpKind op, const Types& in, const Attrs& attrs, int) {
  TP_RETURN_IF_ERROR(expect_rank(in[0], 4, std::string(op_name(op)).append(" input").c_str()));
  const Shape& x = in[0].shape;
  if (op == OpKind::kGlobalAvgPool2d) return Types{TensorType{{x[0], x[1], 1, 1}, in[0].dtype}};
  if (!attrs.has("kernel")) return Status::InvalidArgument("attribute kernel is required");
  auto k = attrs.get_ints("kernel", {});
  auto s = attrs.get_ints("strides", {1, 1});
  auto p = attrs.get_ints("pads", {0, 0, 0, 0});
  auto d = attrs.get_ints("dilations", {1, 1});
  bool ceil_mode = attrs.get_int("ceil_mode", 0) != 0;
  if (k.size() != 2 || s.size() != 2 || p.size() != 4 || d.size() != 2)
    return Status::InvalidArgument("kernel, strides and dilations need 2 values and pads 4");
  for (int i = 0; i < 2; ++i)
    if (k[i] < 1 || s[i] < 1 || d[i] < 1) return Status::InvalidArgument("kernel, strides and dilations must be >= 1");
  for (int i = 0; i < 2; ++i)
    if (p[i] > k[i] / 2 || p[i + 2] > k[i] / 2)
      return Status::Unsupported("pads " + shape_to_string(p) + " exceed half the kernel " + shape_to_string(k) +
                                 " (the limit PyTorch and the pool kernels share)");
  int64_t oh = pooled_size(x[2], k[0], s[0], p[0], p[2], d[0], ceil_mode);
  int64_t ow = pooled_size(x[3], k[1], s[1], p[1], p[3], d[1], ceil_mode);
  if (oh < 1 || ow < 1)
    return Status::InvalidArgument("kernel " + shape_to_string(k) + " does not fit input " + in[0].to_string());
  return Types{TensorType{{x[0], x[1], oh, ow}, in[0].dtype}};
}

double flops_pool(OpKind op, const Types& in, const Attrs& attrs, const Types& out) {
  if (op == OpKind::kGlobalAvgPool2d) return elements(in[0]);
  auto k = attrs.get_ints("kernel", {1, 1});
  return elements(out[0]) * static_cast<double>(k[0] * k[1]);
}

}  // namespace tensorperf::ir::ops
