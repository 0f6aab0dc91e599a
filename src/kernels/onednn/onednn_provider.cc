#include "kernels/onednn/onednn_provider.h"

#include "kernels/onednn/onednn_common.h"

#include <algorithm>
#include <functional>

#include <omp.h>

#include <dnnl.hpp>
#include <cstring>
#include <mutex>
#include <optional>

namespace tensorperf::kernels::onednn {
namespace {

using dnnl::memory;
using ir::OpKind;
using Tag = memory::format_tag;
using DT = memory::data_type;

memory::dims to_dims(const ir::Shape& s) { return memory::dims(s.begin(), s.end()); }

// Process-wide ISA limit from the Halide target string: the first request fixes it.
Status limit_isa(const std::string& target) {
  dnnl::cpu_isa isa = dnnl::cpu_isa::all;
  if (target.find("avx512") != std::string::npos) isa = dnnl::cpu_isa::avx512_core;
  else if (target.find("avx2") != std::string::npos) isa = dnnl::cpu_isa::avx2;
  else if (target.find("avx") != std::string::npos) isa = dnnl::cpu_isa::avx;
  else if (target.find("sse41") != std::string::npos) isa = dnnl::cpu_isa::sse41;
  static std::mutex mu;
  static std::optional<dnnl::cpu_isa> fixed;
  std::lock_guard<std::mutex> lock(mu);
  if (fixed.has_value()) {
    if (*fixed == isa) return Status::Ok();
    return Status::Unsupported("oneDNN's ISA limit is fixed per process; target '" + target +
                               "' needs another one: measure it in a separate process");
  }
  if (dnnl::set_max_cpu_isa(isa) != dnnl::status::success && isa != dnnl::cpu_isa::all)
    return Status::Unsupported("oneDNN refused the ISA limit for target '" + target + "'");
  fixed = isa;
  return Status::Ok();
}

Tag plain_tag(size_t rank) {
  switch (rank) {
    case 1: return Tag::a;
    case 2: return Tag::ab;
    case 3: return Tag::abc;
    case 4: return Tag::abcd;
    case 5: return Tag::abcde;
    default: return Tag::abcdef;
  }
}

// Epilogue as post-ops. A leading "bias" is the primitive's own bias (when it has one); every other
// tensor op is a binary post-op. `bias_dims` is the broadcast shape of a bias as a binary operand.
struct PostOps {
  dnnl::primitive_attr attr;
  bool native_bias = false;
  struct Binary {
    int post_op;         // index among the post-ops
    size_t input;        // kernel input index
    memory::desc desc;   // the layout the primitive reads
    memory::desc user;   // the caller's plain layout (reordered to `desc` in each run when different)
  };
  std::vector<Binary> binary;
  std::optional<size_t> sum_input;  // kernel input accumulated onto by a sum post-op
};

// `add_as_sum`: a residual "add" becomes oneDNN's sum post-op (the residual is copied into dst before
// the primitive runs, which accumulates onto it) instead of a binary post-op: this oneDNN's blocked
// direct convolutions take no full-tensor binary operand and fall back to a generic kernel
// several times slower (ResNet's residual convolutions).
Result<PostOps> make_post_ops(const ir::Workload& w, bool has_native_bias, const memory::dims& bias_dims,
                              const memory::dims& out_dims, Tag out_tag, Tag user_tag, bool add_as_sum = false) {
  PostOps p;
  // Each kernel instance brings its own scratchpad: the library's shared one would make two
  // primitives that run at once on different threads (a stage schedule's groups) overwrite each
  // other's scratch data.
  p.attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  dnnl::post_ops ops;
  size_t next = w.inputs.size();
  int index = 0;
  for (size_t i = 0; i < w.epilogue.size(); ++i, ++index) {
    const std::string& op = w.epilogue[i];
    if (op == "bias" && i == 0 && has_native_bias) {
      p.native_bias = true;
      ++next;
      --index;
    } else if (op == "bias") {
      memory::desc d(bias_dims, DT::f32, plain_tag(bias_dims.size()));
      ops.append_binary(dnnl::algorithm::binary_add, d);
      p.binary.push_back({index, next++, d, d});
    } else if (op == "add" || op == "mul") {
      if (op == "add" && add_as_sum) {
        ops.append_sum(1.0f);
        p.sum_input = next++;
        continue;
      }
      memory::desc d(out_dims, DT::f32, out_tag);
      ops.append_binary(op == "add" ? dnnl::algorithm::binary_add : dnnl::algorithm::binary_mul, d);
      p.binary.push_back({index, next++, d, memory::desc(out_dims, DT::f32, user_tag)});
    } else if (op == "relu") {
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    } else if (op == "relu6") {
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, 0.0f, 6.0f);
    } else if (op == "sigmoid") {
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_logistic, 0.0f, 0.0f);
    } else if (op == "tanh") {
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_tanh, 0.0f, 0.0f);
    } else if (op == "gelu") {
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_erf, 0.0f, 0.0f);
    } else {
      return Status::Unsupported("oneDNN provider: no post-op for epilogue '" + op + "'");
    }
  }
  p.attr.set_post_ops(ops);
  return p;
}

// One primitive plus the reorders between the caller's plain layout and the primitive's formats.
// Weights (input 1 of conv/dense) are reordered once per tensor and reused while the same tensor
// is passed (provider.h); activations are reordered inside every run (a measured cost). Instances
// share the primitive; each has its own stream and reorder buffers. The reorder primitives are made
// once, here: making one per run (a primitive-cache hit, microseconds each) is a cost a deployment
// never pays per call and a measurement must not count (it was 4% of MobileNet-V2's oneDNN records).
class OnednnKernel final : public Kernel {
 public:
  struct Spec {
    dnnl::primitive prim;
    memory::desc src_user, src_prim, dst_user, dst_prim;
    std::optional<memory::desc> wei_user, wei_prim, bias;
    std::vector<PostOps::Binary> binary;
    std::optional<size_t> sum_input;  // copied (reordered) into dst before the primitive runs
    // Plain operands passed as they are: (primitive argument, kernel input, descriptor); a batch
    // norm's mean, variance, scale and shift.
    struct Operand {
      int arg;
      size_t input;
      memory::desc desc;
    };
    std::vector<Operand> operands;
    size_t bias_input = 0;
    int threads = 1;
    memory::desc scratchpad;  // the primitive's scratchpad (user-managed; may be empty)
    // The same op made for other activation layouts (pooling: whatever its producer writes); an
    // instance may adopt one (adopt_input_layout).
    std::vector<std::shared_ptr<const Spec>> alternatives;
  };
  explicit OnednnKernel(Spec spec) : OnednnKernel(std::make_shared<const Spec>(std::move(spec))) {}
  explicit OnednnKernel(std::shared_ptr<const Spec> spec) : root_(spec), stream_(cpu_engine()) {
    bind(std::move(spec));
  }

  // Per-instance state (reorders and their buffers) for `spec`: the root's or an alternative's.
  void bind(std::shared_ptr<const Spec> spec) {
    spec_ = std::move(spec);
    src_tmp_ = dst_tmp_ = wei_tmp_ = scratchpad_ = std::nullopt;
    src_reorder_ = dst_reorder_ = sum_reorder_ = wei_reorder_ = std::nullopt;
    binary_tmp_.clear();
    binary_reorder_.clear();
    wei_from_ = nullptr;
    const OmpThreads scoped(spec_->threads);  // the reorders below run with spec_->threads
    if (spec_->src_prim != spec_->src_user) {
      src_tmp_ = memory(spec_->src_prim, cpu_engine());
      src_reorder_ = make_reorder(spec_->src_user, spec_->src_prim);
    }
    if (spec_->dst_prim != spec_->dst_user) {
      dst_tmp_ = memory(spec_->dst_prim, cpu_engine());
      dst_reorder_ = make_reorder(spec_->dst_prim, spec_->dst_user);
      if (spec_->sum_input) sum_reorder_ = make_reorder(spec_->dst_user, spec_->dst_prim);
    }
    if (spec_->wei_prim && *spec_->wei_prim != *spec_->wei_user) {
      wei_tmp_ = memory(*spec_->wei_prim, cpu_engine());
      wei_reorder_ = make_reorder(*spec_->wei_user, *spec_->wei_prim);
    }
    for (const PostOps::Binary& b : spec_->binary) {
      const bool differ = b.desc != b.user;
      binary_tmp_.push_back(differ ? std::optional<memory>(memory(b.desc, cpu_engine())) : std::nullopt);
      binary_reorder_.push_back(differ ? std::optional<dnnl::reorder>(make_reorder(b.user, b.desc)) : std::nullopt);
    }
    if (spec_->scratchpad.get_size() > 0) scratchpad_ = memory(spec_->scratchpad, cpu_engine());
  }

  // Input 0 in the primitive's source layout; the output and the residual of a sum post-op in its
  // destination layout.
  NativeLayout native_output_layout() const override {
    if (spec_->dst_prim == spec_->dst_user) return {};
    return native_layout(spec_->dst_prim);
  }
  NativeLayout native_input_layout(size_t index) const override {
    if (index == 0 && spec_->src_prim != spec_->src_user) return native_layout(spec_->src_prim);
    if (spec_->sum_input && index == *spec_->sum_input) return native_output_layout();
    return {};
  }
  std::vector<NativeLayout> alternative_input_layouts(size_t index) const override {
    std::vector<NativeLayout> out;
    if (index != 0) return out;
    const std::string current = native_input_layout(0).key;
    for (const auto& alt : root_->alternatives)
      if (alt->src_prim != alt->src_user && native_layout(alt->src_prim).key != current)
        out.push_back(native_layout(alt->src_prim));
    return out;
  }
  std::optional<size_t> accumulated_input() const override { return spec_->sum_input; }
  Status adopt_input_layout(size_t index, const std::string& key) override {
    if (index == 0 && key == native_input_layout(0).key) return Status::Ok();
    if (index == 0)
      for (const auto& alt : root_->alternatives)
        if (alt->src_prim != alt->src_user && native_layout(alt->src_prim).key == key) {
          bind(alt);
          native_src_ = native_sum_ = native_dst_ = false;
          return Status::Ok();
        }
    return Status::InvalidArgument("oneDNN kernel: input " + std::to_string(index) + " cannot take layout '" + key +
                                   "'");
  }
  Status use_native_layouts(const std::vector<bool>& native_inputs, bool native_output) override {
    for (size_t i = 0; i < native_inputs.size(); ++i)
      if (native_inputs[i] && native_input_layout(i).key.empty())
        return Status::InvalidArgument("oneDNN kernel: input " + std::to_string(i) + " has no native layout");
    if (native_output && native_output_layout().key.empty())
      return Status::InvalidArgument("oneDNN kernel: the output has no native layout");
    native_src_ = !native_inputs.empty() && native_inputs[0];
    native_sum_ = spec_->sum_input && *spec_->sum_input < native_inputs.size() && native_inputs[*spec_->sum_input];
    native_dst_ = native_output;
    return Status::Ok();
  }

  Status run(const std::vector<const HostTensor*>& inputs, HostTensor& output) override {
    try {
      omp_set_num_threads(spec_->threads);
      auto wrap = [](const memory::desc& d, const HostTensor* t) {
        return memory(d, cpu_engine(), const_cast<float*>(t->f32()));
      };
      std::unordered_map<int, memory> args;
      memory src = wrap(native_src_ ? spec_->src_prim : spec_->src_user, inputs[0]);
      if (src_tmp_ && !native_src_) {
        src_reorder_->execute(stream_, src, *src_tmp_);
        src = *src_tmp_;
      }
      args[DNNL_ARG_SRC] = src;
      if (spec_->wei_user) {
        memory wei = wrap(*spec_->wei_user, inputs[1]);
        if (wei_tmp_) {
          if (wei_from_ != inputs[1]) {
            wei_reorder_->execute(stream_, wei, *wei_tmp_);
            wei_from_ = inputs[1];
          }
          wei = *wei_tmp_;
        }
        args[DNNL_ARG_WEIGHTS] = wei;
      }
      if (spec_->bias) args[DNNL_ARG_BIAS] = wrap(*spec_->bias, inputs[spec_->bias_input]);
      for (const Spec::Operand& o : spec_->operands) args[o.arg] = wrap(o.desc, inputs[o.input]);
      for (size_t i = 0; i < spec_->binary.size(); ++i) {
        const PostOps::Binary& b = spec_->binary[i];
        memory operand = wrap(b.user, inputs[b.input]);
        if (binary_tmp_[i]) {
          binary_reorder_[i]->execute(stream_, operand, *binary_tmp_[i]);
          operand = *binary_tmp_[i];
        }
        args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(b.post_op) | DNNL_ARG_SRC_1] = operand;
      }
      memory dst = memory(native_dst_ ? spec_->dst_prim : spec_->dst_user, cpu_engine(), output.f32());
      const bool via_tmp = dst_tmp_ && !native_dst_;  // the primitive writes dst_tmp_, then a reorder
      memory prim_dst = via_tmp ? *dst_tmp_ : dst;
      args[DNNL_ARG_DST] = prim_dst;
      if (scratchpad_) args[DNNL_ARG_SCRATCHPAD] = *scratchpad_;
      if (spec_->sum_input) {
        const HostTensor* residual = inputs[*spec_->sum_input];
        // prim_dst is in the primitive's layout; so is the residual when native or when that is plain.
        if (native_sum_ || !dst_tmp_) {
          void* to = prim_dst.get_data_handle();
          if (to != residual->bytes()) std::memcpy(to, residual->bytes(), spec_->dst_prim.get_size());
        } else {
          memory r = wrap(spec_->dst_user, residual);
          sum_reorder_->execute(stream_, r, prim_dst);
        }
      }
      spec_->prim.execute(stream_, args);
      if (via_tmp) dst_reorder_->execute(stream_, *dst_tmp_, dst);
      stream_.wait();
    } catch (const dnnl::error& e) {
      return Status::Internal(std::string("oneDNN kernel failed: ") + e.what());
    }
    return Status::Ok();
  }

  std::unique_ptr<Kernel> new_instance() const override { return std::make_unique<OnednnKernel>(root_); }

 private:
  std::shared_ptr<const Spec> root_;  // the primitive and descriptors as compiled, shared by instances
  std::shared_ptr<const Spec> spec_;  // what this instance runs: root_ or one of its alternatives
  dnnl::stream stream_;
  std::optional<memory> src_tmp_, dst_tmp_, wei_tmp_, scratchpad_;
  std::vector<std::optional<memory>> binary_tmp_;
  // Made once per instance (a reorder primitive is cheap to run, not to make).
  std::optional<dnnl::reorder> src_reorder_, dst_reorder_, sum_reorder_, wei_reorder_;
  std::vector<std::optional<dnnl::reorder>> binary_reorder_;
  const HostTensor* wei_from_ = nullptr;
  bool native_src_ = false, native_sum_ = false, native_dst_ = false;  // use_native_layouts
};

Result<std::string> knob_string(const Config& c, const std::string& name) {
  auto it = c.knobs.find(name);
  if (it == c.knobs.end() || !it->is_string()) return Status::InvalidArgument("oneDNN config needs string knob '" + name + "'");
  return it->get<std::string>();
}

// A convolution's primitive descriptor: oneDNN's choice of implementation and layouts, made without
// generating code.
struct ConvDesc {
  dnnl::convolution_forward::primitive_desc pd;
  PostOps post;
  memory::dims src, dst, wei, bias_dims;
  Tag wei_user_tag = Tag::oihw;
};

Result<ConvDesc> describe_conv(const ir::Workload& w, const Config& c) {
  TP_ASSIGN_OR_RETURN(std::string format, knob_string(c, "format"));
  TP_ASSIGN_OR_RETURN(std::string alg, knob_string(c, "algorithm"));
  if (format != "any" && format != "plain" && format != "nhwc") return Status::InvalidArgument("format must be any, plain or nhwc");
  if (alg != "direct" && alg != "auto") return Status::InvalidArgument("algorithm must be direct or auto");
  const auto& xs = w.inputs[0].shape;
  const auto& ws = w.inputs[1].shape;
  int64_t g = w.attrs.get_int("groups", 1);
  auto strides = w.attrs.get_ints("strides", {1, 1});
  auto pads = w.attrs.get_ints("pads", {0, 0, 0, 0});
  auto dil = w.attrs.get_ints("dilations", {1, 1});
  ConvDesc cd;
  cd.src = to_dims(xs);
  cd.dst = to_dims(w.output.shape);
  cd.wei = g == 1 ? to_dims(ws) : memory::dims{g, ws[0] / g, ws[1], ws[2], ws[3]};
  Tag act_tag = format == "any" ? Tag::any : format == "nhwc" ? Tag::nhwc : Tag::nchw;
  cd.wei_user_tag = g == 1 ? Tag::oihw : Tag::goihw;
  Tag wei_tag = format == "plain" ? cd.wei_user_tag : Tag::any;
  cd.bias_dims = {ws[0]};
  TP_ASSIGN_OR_RETURN(cd.post, make_post_ops(w, true, {1, ws[0], 1, 1}, cd.dst,
                                             format == "nhwc" ? Tag::nhwc : Tag::nchw, Tag::nchw, /*add_as_sum=*/true));
  auto d = dnnl::convolution_forward::desc(
      dnnl::prop_kind::forward_inference,
      alg == "auto" ? dnnl::algorithm::convolution_auto : dnnl::algorithm::convolution_direct,
      memory::desc(cd.src, DT::f32, act_tag), memory::desc(cd.wei, DT::f32, wei_tag),
      cd.post.native_bias ? memory::desc(cd.bias_dims, DT::f32, Tag::x) : memory::desc(),
      memory::desc(cd.dst, DT::f32, act_tag), {strides[0], strides[1]}, {dil[0] - 1, dil[1] - 1}, {pads[0], pads[1]},
      {pads[2], pads[3]});
  cd.pd = dnnl::convolution_forward::primitive_desc(d, cd.post.attr, cpu_engine());
  return cd;
}

Result<OnednnKernel::Spec> build_conv(const ir::Workload& w, const Config& c) {
  TP_ASSIGN_OR_RETURN(ConvDesc cd, describe_conv(w, c));
  OnednnKernel::Spec s;
  s.src_user = memory::desc(cd.src, DT::f32, Tag::nchw);
  s.dst_user = memory::desc(cd.dst, DT::f32, Tag::nchw);
  s.prim = dnnl::convolution_forward(cd.pd);
  s.scratchpad = cd.pd.scratchpad_desc();
  s.src_prim = cd.pd.src_desc();
  s.dst_prim = cd.pd.dst_desc();
  s.wei_user = memory::desc(cd.wei, DT::f32, cd.wei_user_tag);
  s.wei_prim = cd.pd.weights_desc();
  if (cd.post.native_bias) {
    s.bias = memory::desc(cd.bias_dims, DT::f32, Tag::x);
    s.bias_input = w.inputs.size();
  }
  s.binary = cd.post.binary;
  s.sum_input = cd.post.sum_input;
  return s;
}

Result<OnednnKernel::Spec> build_dense(const ir::Workload& w, const Config& c) {
  TP_ASSIGN_OR_RETURN(std::string format, knob_string(c, "format"));
  if (format != "any" && format != "plain") return Status::InvalidArgument("format must be any or plain");
  int64_t M = w.inputs[1].shape[0], K = w.inputs[1].shape[1];
  int64_t R = w.output.num_elements() / M;
  memory::dims src = {R, K}, wei = {M, K}, dst = {R, M}, bias_dims = {M};
  TP_ASSIGN_OR_RETURN(PostOps post, make_post_ops(w, true, {1, M}, dst, Tag::nc, Tag::nc));
  auto d = dnnl::inner_product_forward::desc(
      dnnl::prop_kind::forward_inference, memory::desc(src, DT::f32, Tag::nc),
      memory::desc(wei, DT::f32, format == "any" ? Tag::any : Tag::oi),
      post.native_bias ? memory::desc(bias_dims, DT::f32, Tag::x) : memory::desc(), memory::desc(dst, DT::f32, Tag::nc));
  auto pd = dnnl::inner_product_forward::primitive_desc(d, post.attr, cpu_engine());
  OnednnKernel::Spec s;
  s.prim = dnnl::inner_product_forward(pd);
  s.scratchpad = pd.scratchpad_desc();
  s.src_user = s.src_prim = memory::desc(src, DT::f32, Tag::nc);
  s.dst_user = s.dst_prim = memory::desc(dst, DT::f32, Tag::nc);
  if (pd.src_desc() != s.src_user || pd.dst_desc() != s.dst_user)
    return Status::Internal("oneDNN inner product chose non-plain activations");
  s.wei_user = memory::desc(wei, DT::f32, Tag::oi);
  s.wei_prim = pd.weights_desc();
  if (post.native_bias) {
    s.bias = memory::desc(bias_dims, DT::f32, Tag::x);
    s.bias_input = w.inputs.size();
  }
  s.binary = post.binary;
  return s;
}

// A (possibly transposed, lower-rank) matmul operand as a rank-`rank` desc with explicit strides.
memory::desc operand_desc(const ir::Shape& shape, bool transposed, size_t rank) {
  memory::dims dims(rank, 1), strides(rank, 0);
  ir::Shape phys = shape;
  size_t off = rank - shape.size();
  std::vector<int64_t> pstr(shape.size(), 1);
  for (size_t i = shape.size() - 1; i-- > 0;) pstr[i] = pstr[i + 1] * shape[i + 1];
  for (size_t i = 0; i < shape.size(); ++i) {
    dims[off + i] = shape[i];
    strides[off + i] = pstr[i];
  }
  for (size_t i = 0; i < off; ++i) strides[i] = shape.empty() ? 1 : pstr[0] * shape[0];
  if (transposed) {
    std::swap(dims[rank - 1], dims[rank - 2]);
    std::swap(strides[rank - 1], strides[rank - 2]);
  }
  return memory::desc(dims, DT::f32, strides);
}

Result<OnednnKernel::Spec> build_matmul(const ir::Workload& w, const Config& c) {
  TP_ASSIGN_OR_RETURN(std::string format, knob_string(c, "format"));
  if (format != "plain") return Status::InvalidArgument("format must be plain");
  size_t rank = w.output.shape.size();
  if (rank > 6) return Status::Unsupported("oneDNN matmul: rank above 6");
  bool ta = w.attrs.get_int("transpose_a", 0) != 0, tb = w.attrs.get_int("transpose_b", 0) != 0;
  memory::desc a = operand_desc(w.inputs[0].shape, ta, rank), b = operand_desc(w.inputs[1].shape, tb, rank);
  memory::dims dst = to_dims(w.output.shape);
  memory::dims bias_dims(rank, 1);
  bias_dims.back() = dst.back();
  Tag tag = plain_tag(rank);
  TP_ASSIGN_OR_RETURN(PostOps post, make_post_ops(w, false, bias_dims, dst, tag, tag));
  auto d = dnnl::matmul::desc(a, b, memory::desc(dst, DT::f32, tag));
  auto pd = dnnl::matmul::primitive_desc(d, post.attr, cpu_engine());
  OnednnKernel::Spec s;
  s.prim = dnnl::matmul(pd);
  s.scratchpad = pd.scratchpad_desc();
  s.src_user = s.src_prim = a;
  s.wei_user = s.wei_prim = b;
  s.dst_user = s.dst_prim = memory::desc(dst, DT::f32, tag);
  s.binary = post.binary;
  return s;
}

// A pooling primitive whose activations are in `tag` (the caller's stay plain NCHW).
Result<OnednnKernel::Spec> build_pool_in(const ir::Workload& w, Tag tag) {
  const auto& xs = w.inputs[0].shape;
  const auto& os = w.output.shape;
  bool global = w.op == OpKind::kGlobalAvgPool2d;
  bool is_max = w.op == OpKind::kMaxPool2d;
  auto kernel = global ? std::vector<int64_t>{xs[2], xs[3]} : w.attrs.get_ints("kernel", {1, 1});
  auto strides = w.attrs.get_ints("strides", {1, 1});
  auto pads = w.attrs.get_ints("pads", {0, 0, 0, 0});
  auto dil = is_max ? w.attrs.get_ints("dilations", {1, 1}) : std::vector<int64_t>{1, 1};
  // ceil_mode: oneDNN wants the right padding that yields the IR's output size.
  memory::dims pr = {pads[2], pads[3]};
  for (int d = 0; d < 2; ++d) {
    int64_t needed = (os[2 + d] - 1) * strides[d] + (kernel[d] - 1) * dil[d] + 1 - xs[2 + d] - pads[d];
    pr[d] = std::max<int64_t>(needed, 0);
  }
  bool include_pad = w.attrs.get_int("count_include_pad", 0) != 0;
  if (!is_max && include_pad && (pr[0] != pads[2] || pr[1] != pads[3]))
    return Status::Unsupported("oneDNN pooling: count_include_pad with ceil_mode windows differs from PyTorch's");
  auto alg = is_max        ? dnnl::algorithm::pooling_max
             : include_pad ? dnnl::algorithm::pooling_avg_include_padding
                           : dnnl::algorithm::pooling_avg_exclude_padding;
  memory::dims src = to_dims(xs), dst = to_dims(os);
  TP_ASSIGN_OR_RETURN(PostOps post, make_post_ops(w, false, {1, os[1], 1, 1}, dst, tag, Tag::nchw));
  auto d = dnnl::pooling_v2_forward::desc(dnnl::prop_kind::forward_inference, alg, memory::desc(src, DT::f32, tag),
                                          memory::desc(dst, DT::f32, tag), {strides[0], strides[1]},
                                          {kernel[0], kernel[1]}, {dil[0] - 1, dil[1] - 1}, {pads[0], pads[1]}, pr);
  auto pd = dnnl::pooling_v2_forward::primitive_desc(d, post.attr, cpu_engine());
  OnednnKernel::Spec s;
  s.prim = dnnl::pooling_v2_forward(pd);
  s.scratchpad = pd.scratchpad_desc();
  s.src_user = memory::desc(src, DT::f32, Tag::nchw);
  s.dst_user = memory::desc(dst, DT::f32, Tag::nchw);
  s.src_prim = pd.src_desc();
  s.dst_prim = pd.dst_desc();
  s.binary = post.binary;
  return s;
}

// The config's layout ("format": plain or nhwc) built by `build_in`, and as alternatives the
// layouts oneDNN's convolutions write (channels last; nChw16c and nChw8c, channel-blocked for
// AVX-512 and AVX2), so that a pool or a batch norm can run in whatever layout its producer leaves
// and keep the chain (the ISA limit may refuse some: skipped). A kernel with a binary post-op keeps
// the config's layout only.
Result<OnednnKernel::Spec> build_adopting(const Config& c,
                                          const std::function<Result<OnednnKernel::Spec>(Tag)>& build_in) {
  TP_ASSIGN_OR_RETURN(std::string format, knob_string(c, "format"));
  if (format != "plain" && format != "nhwc") return Status::InvalidArgument("format must be plain or nhwc");
  const Tag tag = format == "nhwc" ? Tag::nhwc : Tag::nchw;
  TP_ASSIGN_OR_RETURN(OnednnKernel::Spec s, build_in(tag));
  if (!s.binary.empty()) return s;
  for (Tag other : {Tag::nchw, Tag::nhwc, Tag::nChw16c, Tag::nChw8c}) {
    if (other == tag) continue;
    try {
      Result<OnednnKernel::Spec> alt = build_in(other);
      if (alt.ok()) s.alternatives.push_back(std::make_shared<const OnednnKernel::Spec>(std::move(alt).value()));
    } catch (const dnnl::error&) {
      // No implementation for this layout under the ISA limit.
    }
  }
  return s;
}

Result<OnednnKernel::Spec> build_pool(const ir::Workload& w, const Config& c) {
  return build_adopting(c, [&](Tag tag) { return build_pool_in(w, tag); });
}

// An inference batch norm (the given mean and variance, then scale and shift; a ReLU epilogue as
// oneDNN's fused one) whose activations are in `tag`.
Result<OnednnKernel::Spec> build_batch_norm_in(const ir::Workload& w, Tag tag) {
  const memory::dims dims = to_dims(w.inputs[0].shape);
  auto flags = dnnl::normalization_flags::use_global_stats | dnnl::normalization_flags::use_scale |
               dnnl::normalization_flags::use_shift;
  if (!w.epilogue.empty()) flags = flags | dnnl::normalization_flags::fuse_norm_relu;
  const float epsilon = static_cast<float>(w.attrs.get_float("epsilon", 1e-5));
  auto d = dnnl::batch_normalization_forward::desc(dnnl::prop_kind::forward_inference, memory::desc(dims, DT::f32, tag),
                                                   epsilon, flags);
  auto pd = dnnl::batch_normalization_forward::primitive_desc(d, cpu_engine());
  OnednnKernel::Spec s;
  s.prim = dnnl::batch_normalization_forward(pd);
  s.scratchpad = pd.scratchpad_desc();
  s.src_user = s.dst_user = memory::desc(dims, DT::f32, Tag::nchw);
  s.src_prim = pd.src_desc();
  s.dst_prim = pd.dst_desc();
  const memory::desc channel({dims[1]}, DT::f32, Tag::a);
  // The IR's inputs: x, scale, shift, mean, variance (ONNX BatchNormalization's order).
  s.operands = {{DNNL_ARG_SCALE, 1, channel},
                {DNNL_ARG_SHIFT, 2, channel},
                {DNNL_ARG_MEAN, 3, channel},
                {DNNL_ARG_VARIANCE, 4, channel}};
  return s;
}

Result<OnednnKernel::Spec> build_batch_norm(const ir::Workload& w, const Config& c) {
  return build_adopting(c, [&](Tag tag) { return build_batch_norm_in(w, tag); });
}

struct OpEntry {
  Result<OnednnKernel::Spec> (*build)(const ir::Workload&, const Config&);
  std::vector<Knob> knobs;
  nlohmann::json default_knobs;
};

const std::map<OpKind, OpEntry>& op_table() {
  using J = nlohmann::json;
  static const OpEntry conv{build_conv,
                            {{"format", {J("any"), J("plain"), J("nhwc")}}, {"algorithm", {J("direct"), J("auto")}}},
                            {{"format", "any"}, {"algorithm", "direct"}}};
  static const OpEntry dense{build_dense, {{"format", {J("any"), J("plain")}}}, {{"format", "any"}}};
  static const OpEntry matmul{build_matmul, {{"format", {J("plain")}}}, {{"format", "plain"}}};
  static const OpEntry pool{build_pool, {{"format", {J("plain"), J("nhwc")}}}, {{"format", "plain"}}};
  static const OpEntry batch_norm{build_batch_norm, {{"format", {J("plain"), J("nhwc")}}}, {{"format", "plain"}}};
  static const std::map<OpKind, OpEntry> table = {
      {OpKind::kConv2d, conv},          {OpKind::kDense, dense},          {OpKind::kMatmul, matmul},
      {OpKind::kBatchMatmul, matmul},   {OpKind::kMaxPool2d, pool},       {OpKind::kAvgPool2d, pool},
      {OpKind::kGlobalAvgPool2d, pool}, {OpKind::kBatchNorm, batch_norm},
  };
  return table;
}

class OnednnProvider final : public Provider {
 public:
  std::string name() const override { return "onednn"; }

  bool supports(const ir::Workload& w) const override {
    if (op_table().count(w.op) == 0) return false;
    // Batch norm: of images, with at most a ReLU after it (oneDNN's fused one).
    if (w.op == OpKind::kBatchNorm &&
        (w.inputs[0].shape.size() != 4 || w.epilogue.size() > 1 || (w.epilogue.size() == 1 && w.epilogue[0] != "relu")))
      return false;
    for (const ir::TensorType& t : kernel_input_types(w))
      if (t.dtype != ir::DType::kFloat32) return false;
    return w.output.dtype == ir::DType::kFloat32;
  }

  ConfigSpace space(const ir::Workload& w) const override {
    auto it = op_table().find(w.op);
    return it == op_table().end() ? ConfigSpace{} : ConfigSpace{it->second.knobs};
  }

  Config default_config(const ir::Workload& w) const override {
    auto it = op_table().find(w.op);
    return Config{"onednn", it == op_table().end() ? nlohmann::json::object() : it->second.default_knobs};
  }

  // Every knob of the op's table present with one of its listed values: the same configs the
  // builders accept.
  Status validate(const ir::Workload& w, const Config& c) const override {
    if (!supports(w))
      return Status::Unsupported("the oneDNN provider has no float32 kernel for op '" + std::string(ir::op_name(w.op)) + "'");
    if (c.provider != "onednn") return Status::InvalidArgument("config is for provider '" + c.provider + "', not 'onednn'");
    if (!c.knobs.is_object()) return Status::InvalidArgument("config knobs must be a JSON object");
    for (const Knob& k : op_table().at(w.op).knobs) {
      auto it = c.knobs.find(k.name);
      if (it == c.knobs.end()) return Status::InvalidArgument("oneDNN config needs knob '" + k.name + "'");
      if (std::find(k.values.begin(), k.values.end(), *it) == k.values.end()) {
        std::string listed;
        for (const auto& v : k.values) {
          if (!listed.empty()) listed += ", ";
          listed += v.dump();
        }
        return Status::InvalidArgument("oneDNN knob '" + k.name + "' must be one of " + listed + ", got " + it->dump());
      }
    }
    return Status::Ok();
  }

  // oneDNN's knobs say all there is to say about its configs.
  Result<std::vector<double>> schedule_features(const ir::Workload& w, const Config& c) const override {
    TP_RETURN_IF_ERROR(validate(w, c));
    return std::vector<double>{};
  }

  // Convolutions: oneDNN's own choice for the output, from the primitive descriptor (made without
  // generating code, under the process's ISA limit once a compile has fixed it; the input's is the
  // same but for an image's few channels): "onednn:nhwc" for channels last,
  // "onednn:blocked16" (nChw16c) and the like, "" for plain NCHW. Pools without a binary post-op
  // and batch norms: "onednn:adopt", they run in their producer's layout
  // (Kernel::adopt_input_layout). Dense and matmul: plain.
  std::string expected_native_layout(const ir::Workload& w, const Config& c) const override {
    if (!validate(w, c).ok()) return {};
    if (w.op == ir::OpKind::kBatchNorm) return "onednn:adopt";
    if (w.op == ir::OpKind::kMaxPool2d || w.op == ir::OpKind::kAvgPool2d || w.op == ir::OpKind::kGlobalAvgPool2d) {
      for (const std::string& op : w.epilogue)
        if (op == "bias" || op == "add" || op == "mul") return {};
      return "onednn:adopt";
    }
    if (w.op != ir::OpKind::kConv2d) return {};
    try {
      Result<ConvDesc> cd = describe_conv(w, c);
      if (!cd.ok()) return {};
      const memory::desc dst = cd->pd.dst_desc();
      if (dst == memory::desc(cd->dst, DT::f32, Tag::nchw)) return {};
      if (native_layout(dst).channels_last) return "onednn:nhwc";
      std::string family = "onednn:blocked";
      const dnnl_blocking_desc_t& b = dst.data.format_desc.blocking;
      for (int i = 0; i < b.inner_nblks; ++i) family += (i ? "x" : "") + std::to_string(b.inner_blks[i]);
      return family;
    } catch (const dnnl::error&) {
      return {};
    }
  }

  // oneDNN picks its own kernels: its whole (small) space is the candidate list.
  std::vector<Config> seed_configs(const ir::Workload&, const std::string&) const override { return {}; }

  // oneDNN creates its kernels per primitive and starts OpenMP's threads on the first run: there is
  // nothing to build ahead that a forked worker could inherit safely.
  Status warm_up(const std::string&) const override { return Status::Ok(); }

  Result<std::unique_ptr<Kernel>> compile(const ir::Workload& w, const Config& c,
                                          const CompileOptions& options) const override {
    TP_RETURN_IF_ERROR(validate(w, c));
    if (options.threads < 1) return Status::InvalidArgument("threads must be at least 1");
    TP_RETURN_IF_ERROR(limit_isa(options.target));
    // With OpenMP, a oneDNN primitive fixes its thread count when it is made: every primitive of
    // the kernel (the reorders too) is made under the kernel's count, whatever the calling thread's
    // is, and the caller's count is restored. (Made under 2 and run on 1 CPU, a reorder ran 8-30 ms
    // instead of 0.2-1.5: its threads took turns on the CPU.)
    const OmpThreads scoped(options.threads);
    try {
      TP_ASSIGN_OR_RETURN(OnednnKernel::Spec spec, op_table().at(w.op).build(w, c));
      spec.threads = options.threads;
      for (auto& alt : spec.alternatives) {
        auto copy = std::make_shared<OnednnKernel::Spec>(*alt);
        copy->threads = options.threads;
        alt = std::move(copy);
      }
      return std::unique_ptr<Kernel>(new OnednnKernel(std::move(spec)));
    } catch (const dnnl::error& e) {
      return Status::InvalidArgument(std::string("oneDNN has no implementation for this config: ") + e.what());
    }
  }
};

}  // namespace

const Provider& onednn_provider() {
  static const OnednnProvider provider;
  return provider;
}

}  // namespace tensorperf::kernels::onednn
