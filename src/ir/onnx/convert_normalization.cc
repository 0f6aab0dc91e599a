// BatchNormalization (inference) -> batch_norm, LayerNormalization (opset 17) -> layer_norm,
// Softmax -> softmax (before opset 13 over the flattened trailing axes, via reshapes when needed).
#include <algorithm>

#include "ir/onnx/converters.h"

namespace tensorperf::ir::onnx_import {
namespace {

Result<std::vector<ValueId>> values(ImportContext& ctx, const OnnxNode& node, int count) {
  std::vector<ValueId> out;
  for (int i = 0; i < count; ++i) {
    TP_ASSIGN_OR_RETURN(ValueId v, ctx.value(node.input(i)));
    out.push_back(v);
  }
  return out;
}

Status check_single_output(const OnnxNode& node) {
  for (int i = 1; i < node.num_outputs(); ++i) {
    if (node.has_output(i)) return node.unsupported("only the first output is supported (inference mode)");
  }
  return Status::Ok();
}

}  // namespace

Status convert_batch_normalization(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(5, 5));
  TP_RETURN_IF_ERROR(node.check_attrs({"epsilon", "momentum", "training_mode"}));
  TP_RETURN_IF_ERROR(check_single_output(node));
  TP_ASSIGN_OR_RETURN(int64_t training, node.attr_int("training_mode", 0));
  if (training != 0) return node.unsupported("training_mode=1 is not supported");
  TP_ASSIGN_OR_RETURN(double epsilon, node.attr_float("epsilon", 1e-5));
  TP_ASSIGN_OR_RETURN(std::vector<ValueId> inputs, values(ctx, node, 5));
  TP_ASSIGN_OR_RETURN(ValueId y, ctx.add_op(node, OpKind::kBatchNorm, std::move(inputs), Attrs{{"epsilon", epsilon}}));
  ctx.bind_value(node.output(0), y);
  return Status::Ok();
}

Status convert_layer_normalization(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(2, 3));
  TP_RETURN_IF_ERROR(node.check_attrs({"axis", "epsilon", "stash_type"}));
  TP_RETURN_IF_ERROR(check_single_output(node));
  TP_ASSIGN_OR_RETURN(int64_t axis, node.attr_int("axis", -1));
  TP_ASSIGN_OR_RETURN(double epsilon, node.attr_float("epsilon", 1e-5));
  TP_ASSIGN_OR_RETURN(std::vector<ValueId> inputs, values(ctx, node, 2));
  if (node.has_input(2)) {
    TP_ASSIGN_OR_RETURN(ValueId beta, ctx.value(node.input(2)));
    inputs.push_back(beta);
  } else {  // no bias: a zero beta shaped like gamma
    TP_ASSIGN_OR_RETURN(TensorType gamma, ctx.type(node.input(1)));
    const ConstTensor zeros =
        ConstTensor::from_floats(std::vector<double>(gamma.num_elements(), 0.0), gamma.shape, gamma.dtype);
    inputs.push_back(ctx.graph().add_constant(node.name() + "/beta", zeros.type(), zeros.data));
  }
  Attrs attrs{{"axis", axis}, {"epsilon", epsilon}};
  TP_ASSIGN_OR_RETURN(ValueId y, ctx.add_op(node, OpKind::kLayerNorm, std::move(inputs), std::move(attrs)));
  ctx.bind_value(node.output(0), y);
  return Status::Ok();
}

Status convert_softmax(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(1, 1));
  TP_RETURN_IF_ERROR(node.check_attrs({"axis"}));
  TP_ASSIGN_OR_RETURN(TensorType x_type, ctx.type(node.input(0)));
  TP_ASSIGN_OR_RETURN(int64_t axis, node.attr_int("axis", node.opset() >= 13 ? -1 : 1));
  const int64_t rank = x_type.rank();
  if (axis < -rank || axis >= rank) return node.invalid("axis " + std::to_string(axis) + " is out of range");
  const int64_t positive = axis < 0 ? axis + rank : axis;
  TP_ASSIGN_OR_RETURN(ValueId x, ctx.value(node.input(0)));
  if (node.opset() >= 13 || positive == rank - 1) {
    TP_ASSIGN_OR_RETURN(ValueId y, ctx.add_op(node, OpKind::kSoftmax, {x}, Attrs{{"axis", axis}}));
    ctx.bind_value(node.output(0), y);
    return Status::Ok();
  }
  // Before opset 13, Softmax normalises over all axes from `axis` on, as one flattened axis.
  int64_t outer = 1;
  for (int64_t d = 0; d < positive; ++d) outer *= x_type.shape[d];
  const std::vector<int64_t> flat = {outer, x_type.num_elements() / std::max<int64_t>(outer, 1)};
  TP_ASSIGN_OR_RETURN(ValueId f, ctx.add_op(node, OpKind::kReshape, {x}, Attrs{{"shape", flat}}, "flatten"));
  TP_ASSIGN_OR_RETURN(ValueId s, ctx.add_op(node, OpKind::kSoftmax, {f}, Attrs{{"axis", int64_t{-1}}}));
  TP_ASSIGN_OR_RETURN(ValueId y, ctx.add_op(node, OpKind::kReshape, {s}, Attrs{{"shape", x_type.shape}}, "unflatten"));
  ctx.bind_value(node.output(0), y);
  return Status::Ok();
}

}  // namespace tensorperf::ir::onnx_import
