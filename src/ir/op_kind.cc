#include "ir/op_kind.h"

#include <string>

namespace tensorperf::ir {

namespace {
struct OpKindInfo {
  OpKind op;
  std::string_view name;
  OpCategory category;
};
constexpr OpKindInfo kOps[] = {
    {OpKind::kConv2d, "conv2d", OpCategory::kAnchor},
    {OpKind::kDense, "dense", OpCategory::kAnchor},
    {OpKind::kMatmul, "matmul", OpCategory::kAnchor},
    {OpKind::kBatchMatmul, "batch_matmul", OpCategory::kAnchor},
    {OpKind::kMaxPool2d, "max_pool2d", OpCategory::kReduction},
    {OpKind::kAvgPool2d, "avg_pool2d", OpCategory::kReduction},
    {OpKind::kGlobalAvgPool2d, "global_avg_pool2d", OpCategory::kReduction},
    {OpKind::kAdd, "add", OpCategory::kElementwise},
    {OpKind::kMul, "mul", OpCategory::kElementwise},
    {OpKind::kRelu, "relu", OpCategory::kElementwise},
    {OpKind::kRelu6, "relu6", OpCategory::kElementwise},
    {OpKind::kSigmoid, "sigmoid", OpCategory::kElementwise},
    {OpKind::kTanh, "tanh", OpCategory::kElementwise},
    {OpKind::kGelu, "gelu", OpCategory::kElementwise},
    {OpKind::kBatchNorm, "batch_norm", OpCategory::kElementwise},
    {OpKind::kConcat, "concat", OpCategory::kLayout},
    {OpKind::kSplit, "split", OpCategory::kLayout},
    {OpKind::kSlice, "slice", OpCategory::kLayout},
    {OpKind::kReshape, "reshape", OpCategory::kLayout},
    {OpKind::kTranspose, "transpose", OpCategory::kLayout},
    {OpKind::kFlatten, "flatten", OpCategory::kLayout},
    {OpKind::kSoftmax, "softmax", OpCategory::kReduction},
    {OpKind::kLayerNorm, "layer_norm", OpCategory::kReduction},
};
const OpKindInfo& info(OpKind op) {
  for (const auto& i : kOps)
    if (i.op == op) return i;
  return kOps[0];
}
}  // namespace

std::string_view op_name(OpKind op) { return info(op).name; }
OpCategory op_category(OpKind op) { return info(op).category; }

Result<OpKind> parse_op(std::string_view name) {
  for (const auto& i : kOps)
    if (i.name == name) return i.op;
  return Status::InvalidArgument("unknown operator kind \"" + std::string(name) + "\"");
}

}  // namespace tensorperf::ir
