// Constant sources and the shape arithmetic exporters write around Reshape (Shape -> Gather ->
// Unsqueeze -> Concat): Constant, Shape, Gather, Cast and ConstantOfShape fold to constants. Gather
// and Cast on computed tensors are not supported.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstring>

#include "ir/onnx/converters.h"

namespace tensorperf::ir::onnx_import {
namespace {

// ONNX element type codes (TensorProto::DataType) to IR dtypes, for Cast's `to`.
Result<DType> dtype_from_onnx(const OnnxNode& node, int64_t code) {
  switch (code) {
    case onnx::TensorProto::FLOAT:
    case onnx::TensorProto::DOUBLE:
      return DType::kFloat32;
    case onnx::TensorProto::FLOAT16:
      return DType::kFloat16;
    case onnx::TensorProto::INT8:
      return DType::kInt8;
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::BOOL:
      return DType::kInt32;
    case onnx::TensorProto::INT64:
      return DType::kInt64;
    default:
      return node.unsupported("element type code " + std::to_string(code) + " is not supported");
  }
}

}  // namespace

Status convert_constant(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(0, 0));
  TP_RETURN_IF_ERROR(node.check_attrs({"value", "value_float", "value_floats", "value_int", "value_ints"}));
  ConstTensor t;
  if (node.has_attr("value")) {
    TP_ASSIGN_OR_RETURN(t, node.attr_tensor("value"));
  } else if (node.has_attr("value_float")) {
    TP_ASSIGN_OR_RETURN(double v, node.attr_float("value_float", 0.0));
    t = ConstTensor::from_floats({v}, {}, DType::kFloat32);
  } else if (node.has_attr("value_floats")) {
    TP_ASSIGN_OR_RETURN(std::vector<double> v, node.attr_floats("value_floats"));
    const int64_t n = static_cast<int64_t>(v.size());
    t = ConstTensor::from_floats(v, {n}, DType::kFloat32);
  } else if (node.has_attr("value_int")) {
    TP_ASSIGN_OR_RETURN(int64_t v, node.attr_int("value_int", 0));
    t = ConstTensor::from_ints({v}, {}, DType::kInt64);
  } else if (node.has_attr("value_ints")) {
    TP_ASSIGN_OR_RETURN(std::vector<int64_t> v, node.attr_ints("value_ints", {}));
    const int64_t n = static_cast<int64_t>(v.size());
    t = ConstTensor::from_ints(v, {n}, DType::kInt64);
  } else {
    return node.invalid("has no value attribute");
  }
  ctx.bind_constant(node.output(0), std::move(t));
  return Status::Ok();
}

Status convert_shape(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(1, 1));
  TP_RETURN_IF_ERROR(node.check_attrs({"start", "end"}));
  TP_ASSIGN_OR_RETURN(TensorType x_type, ctx.type(node.input(0)));
  const int64_t rank = x_type.rank();
  TP_ASSIGN_OR_RETURN(int64_t start, node.attr_int("start", 0));
  TP_ASSIGN_OR_RETURN(int64_t end, node.attr_int("end", rank));
  auto clamp = [rank](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
  start = clamp(start);
  end = std::max(start, clamp(end));
  std::vector<int64_t> dims(x_type.shape.begin() + start, x_type.shape.begin() + end);
  ctx.bind_constant(node.output(0), ConstTensor::from_ints(dims, {end - start}, DType::kInt64));
  return Status::Ok();
}

Status convert_gather(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(2, 2));
  TP_RETURN_IF_ERROR(node.check_attrs({"axis"}));
  const ConstTensor* data = ctx.constant(node.input(0));
  const ConstTensor* indices = ctx.constant(node.input(1));
  if (data == nullptr && indices != nullptr && indices->num_elements() == 1) {
    // One index of a computed tensor (ViT's class token, x[:, 0]): a slice of that row.
    TP_ASSIGN_OR_RETURN(int64_t axis, node.attr_int("axis", 0));
    return gather_one(node, ctx, axis, indices->int_at(0), indices->type().rank() > 0);
  }
  if (data == nullptr || indices == nullptr) {
    return node.unsupported("Gather of a computed tensor is supported with one constant index only");
  }
  const int64_t rank = data->type().rank();
  TP_ASSIGN_OR_RETURN(int64_t axis, node.attr_int("axis", 0));
  if (axis < -rank || axis >= rank) return node.invalid("axis " + std::to_string(axis) + " is out of range");
  if (axis < 0) axis += rank;
  const int64_t dim = data->shape[axis];
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= data->shape[d];
  const int64_t inner_bytes = data->num_elements() / std::max<int64_t>(outer * dim, 1) * dtype_bytes(data->dtype);
  Shape shape(data->shape.begin(), data->shape.begin() + axis);
  shape.insert(shape.end(), indices->shape.begin(), indices->shape.end());
  shape.insert(shape.end(), data->shape.begin() + axis + 1, data->shape.end());
  auto bytes = std::make_shared<std::vector<std::byte>>(TensorType{shape, data->dtype}.num_bytes());
  std::byte* out = bytes->data();
  const std::vector<int64_t> idx = indices->ints();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i : idx) {
      if (i < -dim || i >= dim) return node.invalid("index " + std::to_string(i) + " is out of range");
      const int64_t row = i < 0 ? i + dim : i;
      if (inner_bytes > 0) std::memcpy(out, data->data->data() + (o * dim + row) * inner_bytes, inner_bytes);
      out += inner_bytes;
    }
  }
  ctx.bind_constant(node.output(0), ConstTensor{data->dtype, std::move(shape), std::move(bytes)});
  return Status::Ok();
}

Status convert_cast(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(1, 1));
  TP_RETURN_IF_ERROR(node.check_attrs({"to", "saturate"}));
  if (!node.has_attr("to")) return node.invalid("attribute to is required");
  TP_ASSIGN_OR_RETURN(int64_t to, node.attr_int("to", 0));
  TP_ASSIGN_OR_RETURN(DType dtype, dtype_from_onnx(node, to));
  if (const ConstTensor* c = ctx.constant(node.input(0))) {
    ctx.bind_constant(node.output(0), c->is_integer() && dtype != DType::kFloat32 && dtype != DType::kFloat16
                                          ? ConstTensor::from_ints(c->ints(), c->shape, dtype)
                                          : ConstTensor::from_floats(c->floats(), c->shape, dtype));
    return Status::Ok();
  }
  TP_ASSIGN_OR_RETURN(TensorType x_type, ctx.type(node.input(0)));
  // Constants of these types fold into the nearest IR type; a computed tensor keeps its type.
  const bool inexact = to == onnx::TensorProto::DOUBLE || to == onnx::TensorProto::UINT8 ||
                       to == onnx::TensorProto::INT16 || to == onnx::TensorProto::BOOL;
  if (x_type.dtype != dtype || inexact) {
    return node.unsupported("casting a computed tensor from " + std::string(dtype_name(x_type.dtype)) + " to " +
                            onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(to)) +
                            " is not supported");
  }
  ctx.alias(node.output(0), node.input(0));
  return Status::Ok();
}

Status convert_constant_of_shape(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(1, 1));
  TP_RETURN_IF_ERROR(node.check_attrs({"value"}));
  const ConstTensor* shape_tensor = ctx.constant(node.input(0));
  if (shape_tensor == nullptr) return node.unsupported("the shape input must be a constant");
  ConstTensor fill = ConstTensor::from_floats({0.0}, {1}, DType::kFloat32);
  if (node.has_attr("value")) {
    TP_ASSIGN_OR_RETURN(fill, node.attr_tensor("value"));
  }
  if (fill.num_elements() != 1) return node.invalid("value must hold one element");
  const Shape shape = shape_tensor->ints();
  for (int64_t d : shape) {
    if (d < 0) return node.invalid("negative dimension in the shape " + shape_to_string(shape));
  }
  const int64_t n = TensorType{shape, fill.dtype}.num_elements();
  if (n > kMaxFoldedElements) return node.unsupported("a constant of " + std::to_string(n) + " elements is too large");
  ctx.bind_constant(node.output(0),
                    fill.is_integer()
                        ? ConstTensor::from_ints(std::vector<int64_t>(n, fill.int_at(0)), shape, fill.dtype)
                        : ConstTensor::from_floats(std::vector<double>(n, fill.float_at(0)), shape, fill.dtype));
  return Status::Ok();
}

}  // namespace tensorperf::ir::onnx_import
