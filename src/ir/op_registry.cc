// The one table of op kinds: arity and the family rules (src/ir/ops/) for each.
#include "ir/op_registry.h"

#include <limits>
#include <stdexcept>
#include <string>
#include <variant>

#include "ir/ops/op_rules.h"

namespace tensorperf::ir {

namespace {

constexpr int kMany = std::numeric_limits<int>::max();

struct OpRule {
  OpKind op;
  int min_inputs, max_inputs;
  bool variadic_outputs;
  ops::InferFn infer;
  ops::FlopsFn flops;
};

constexpr OpRule kRules[] = {
    {OpKind::kConv2d, 2, 3, false, ops::infer_conv2d, ops::flops_conv2d},
    {OpKind::kDense, 2, 3, false, ops::infer_matmul_family, ops::flops_matmul_family},
    {OpKind::kMatmul, 2, 2, false, ops::infer_matmul_family, ops::flops_matmul_family},
    {OpKind::kBatchMatmul, 2, 2, false, ops::infer_matmul_family, ops::flops_matmul_family},
    {OpKind::kMaxPool2d, 1, 1, false, ops::infer_pool, ops::flops_pool},
    {OpKind::kAvgPool2d, 1, 1, false, ops::infer_pool, ops::flops_pool},
    {OpKind::kGlobalAvgPool2d, 1, 1, false, ops::infer_pool, ops::flops_pool},
    {OpKind::kAdd, 2, 2, false, ops::infer_elementwise, ops::flops_elementwise},
    {OpKind::kMul, 2, 2, false, ops::infer_elementwise, ops::flops_elementwise},
    {OpKind::kRelu, 1, 1, false, ops::infer_elementwise, ops::flops_elementwise},
    {OpKind::kRelu6, 1, 1, false, ops::infer_elementwise, ops::flops_elementwise},
    {OpKind::kSigmoid, 1, 1, false, ops::infer_elementwise, ops::flops_elementwise},
    {OpKind::kTanh, 1, 1, false, ops::infer_elementwise, ops::flops_elementwise},
    {OpKind::kGelu, 1, 1, false, ops::infer_elementwise, ops::flops_elementwise},
    {OpKind::kBatchNorm, 5, 5, false, ops::infer_elementwise, ops::flops_elementwise},
    {OpKind::kConcat, 1, kMany, false, ops::infer_layout, ops::flops_none},
    {OpKind::kSplit, 1, 1, true, ops::infer_layout, ops::flops_none},
    {OpKind::kSlice, 1, 1, false, ops::infer_layout, ops::flops_none},
    {OpKind::kReshape, 1, 1, false, ops::infer_layout, ops::flops_none},
    {OpKind::kTranspose, 1, 1, false, ops::infer_layout, ops::flops_none},
    {OpKind::kFlatten, 1, 1, false, ops::infer_layout, ops::flops_none},
    {OpKind::kSoftmax, 1, 1, false, ops::infer_normalization, ops::flops_normalization},
    {OpKind::kLayerNorm, 1, 3, false, ops::infer_normalization, ops::flops_normalization},
};

const OpRule& rule(OpKind op) {
  for (const auto& r : kRules)
    if (r.op == op) return r;
  throw std::logic_error("op kind without a rule: " + std::string(op_name(op)));
}

}  // namespace

Result<std::vector<TensorType>> infer_op(OpKind op, const std::vector<TensorType>& inputs, const Attrs& attrs,
                                         int num_outputs) {
  const OpRule& r = rule(op);
  int n = static_cast<int>(inputs.size());
  if (n < r.min_inputs || n > r.max_inputs) {
    std::string want = r.min_inputs == r.max_inputs ? std::to_string(r.min_inputs)
                       : r.max_inputs == kMany      ? "at least " + std::to_string(r.min_inputs)
                                                    : std::to_string(r.min_inputs) + " to " + std::to_string(r.max_inputs);
    return Status::InvalidArgument(std::string(op_name(op)) + " takes " + want + " inputs, got " + std::to_string(n));
  }
  if (!r.variadic_outputs && num_outputs != 1)
    return Status::InvalidArgument(std::string(op_name(op)) + " has one output, asked for " + std::to_string(num_outputs));
  // Sizes from input are bounded before any arithmetic on them: rules then cannot overflow.
  for (size_t i = 0; i < inputs.size(); ++i)
    TP_RETURN_IF_ERROR(check_size(inputs[i], std::string(op_name(op)) + " input " + std::to_string(i)));
  for (const auto& [name, value] : attrs.values()) {
    // Slice's bounds are clamped to the axis (ONNX writes INT64_MAX for "to the end").
    if (op == OpKind::kSlice && (name == "starts" || name == "ends")) continue;
    auto too_large = [&](int64_t v) { return v > kMaxDimension || v < -kMaxDimension; };
    bool bad = std::holds_alternative<int64_t>(value) && too_large(std::get<int64_t>(value));
    if (const auto* list = std::get_if<std::vector<int64_t>>(&value))
      for (int64_t v : *list) bad = bad || too_large(v);
    if (bad)
      return Status::InvalidArgument("attribute " + name + " of " + std::string(op_name(op)) + " has a value beyond +-" +
                                     std::to_string(kMaxDimension));
  }
  Result<std::vector<TensorType>> out = Status::Internal("not inferred");
  try {
    out = r.infer(op, inputs, attrs, num_outputs);
  } catch (const std::logic_error& e) {  // an attribute of the wrong type
    return Status::InvalidArgument(e.what());
  }
  if (out.ok())
    for (const TensorType& t : *out) TP_RETURN_IF_ERROR(check_size(t, std::string(op_name(op)) + " output"));
  return out;
}

double op_flops(OpKind op, const std::vector<TensorType>& inputs, const Attrs& attrs,
                const std::vector<TensorType>& outputs) {
  return rule(op).flops(op, inputs, attrs, outputs);
}

}  // namespace tensorperf::ir
