// The Halide provider: one template per op kind, looked up in one table.
#include "kernels/halide/halide_provider.h"

#include <map>

#include "kernels/halide/halide_template.h"

namespace tensorperf::kernels::halide {

using ir::OpKind;

const OpTemplate* find_template(OpKind op) {
  static const std::map<OpKind, const OpTemplate*> table = {
      {OpKind::kConv2d, &conv2d_template()},
      {OpKind::kDense, &dense_template()},
      {OpKind::kMatmul, &matmul_template()},
      {OpKind::kBatchMatmul, &matmul_template()},
      {OpKind::kMaxPool2d, &pool_template()},
      {OpKind::kAvgPool2d, &pool_template()},
      {OpKind::kGlobalAvgPool2d, &pool_template()},
      {OpKind::kSoftmax, &softmax_template()},
      {OpKind::kLayerNorm, &layer_norm_template()},
      {OpKind::kAdd, &elementwise_template()},
      {OpKind::kMul, &elementwise_template()},
      {OpKind::kRelu, &elementwise_template()},
      {OpKind::kRelu6, &elementwise_template()},
      {OpKind::kSigmoid, &elementwise_template()},
      {OpKind::kTanh, &elementwise_template()},
      {OpKind::kGelu, &elementwise_template()},
      {OpKind::kBatchNorm, &elementwise_template()},
  };
  auto it = table.find(op);
  return it == table.end() ? nullptr : it->second;
}

namespace {

class HalideProvider final : public Provider {
 public:
  std::string name() const override { return "halide"; }

  bool supports(const ir::Workload& w) const override {
    if (find_template(w.op) == nullptr) return false;
    for (const ir::TensorType& t : kernel_input_types(w))
      if (t.dtype != ir::DType::kFloat32) return false;
    return w.output.dtype == ir::DType::kFloat32;
  }

  ConfigSpace space(const ir::Workload& w) const override {
    const OpTemplate* t = find_template(w.op);
    return t == nullptr ? ConfigSpace{} : t->space(w);
  }

  Config default_config(const ir::Workload& w) const override {
    const OpTemplate* t = find_template(w.op);
    return Config{"halide", t == nullptr ? nlohmann::json::object() : t->default_knobs(w)};
  }

  Status validate(const ir::Workload& w, const Config& c) const override {
    if (!supports(w))
      return Status::Unsupported("the Halide provider has no float32 template for op '" +
                                 std::string(ir::op_name(w.op)) + "'");
    if (c.provider != "halide")
      return Status::InvalidArgument("config is for provider '" + c.provider + "', not 'halide'");
    if (!c.knobs.is_object()) return Status::InvalidArgument("config knobs must be a JSON object");
    return find_template(w.op)->validate(w, Knobs(c.knobs));
  }

  std::vector<Config> seed_configs(const ir::Workload& w, const std::string& target) const override {
    const OpTemplate* t = find_template(w.op);
    auto lanes = vector_lanes(target);
    std::vector<Config> out;
    if (t == nullptr || !t->seeds || !lanes.ok() || !supports(w)) return out;
    for (auto& knobs : t->seeds(w, *lanes)) out.push_back(Config{"halide", std::move(knobs)});
    return out;
  }

  Result<std::vector<double>> schedule_features(const ir::Workload& w, const Config& c) const override {
    TP_RETURN_IF_ERROR(validate(w, c));
    const OpTemplate* t = find_template(w.op);
    if (!t->features) return std::vector<double>{};
    return t->features(w, Knobs(c.knobs));
  }

  Result<std::unique_ptr<Kernel>> compile(const ir::Workload& w, const Config& c,
                                          const CompileOptions& options) const override {
    TP_RETURN_IF_ERROR(validate(w, c));
    try {
      TP_ASSIGN_OR_RETURN(Program program, find_template(w.op)->build(w, Knobs(c.knobs)));
      return compile_program(std::move(program), options);
    } catch (const Halide::CompileError& e) {
      return Status::InvalidArgument(std::string("schedule does not apply: ") + e.what());
    }
  }

  Status warm_up(const std::string& target) const override { return warm_up_jit(target); }
};

}  // namespace

}  // namespace tensorperf::kernels::halide

namespace tensorperf::kernels {

Result<int> vector_lanes(const std::string& target) {
  TP_ASSIGN_OR_RETURN(Halide::Target t, halide::parse_target(target));
  if (t.has_feature(Halide::Target::AVX512)) return 16;
  if (t.has_feature(Halide::Target::AVX) || t.has_feature(Halide::Target::AVX2)) return 8;
  return 4;
}

}  // namespace tensorperf::kernels

namespace tensorperf::kernels::halide {

const Provider& halide_provider() {
  static const HalideProvider provider;
  return provider;
}

}  // namespace tensorperf::kernels::halide
