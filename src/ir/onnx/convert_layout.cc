// Data movement: Concat, Split, Slice, Reshape, Transpose, Flatten, Squeeze, Unsqueeze, and the
// pass-throughs Identity and Dropout. On constants (shape arithmetic) they fold; otherwise they become
// the IR's layout ops (Squeeze and Unsqueeze as reshape).
#include <algorithm>
#include <cstring>
#include <limits>

#include "ir/onnx/converters.h"

namespace tensorperf::ir::onnx_import {
namespace {

Result<int64_t> normalize_axis(const OnnxNode& node, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) {
    return node.invalid("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  }
  return axis < 0 ? axis + rank : axis;
}

// The int values of constant input i; Unsupported when the input is not a known constant.
Result<std::vector<int64_t>> constant_ints(const OnnxNode& node, const ImportContext& ctx, int i, const char* what) {
  const ConstTensor* t = ctx.constant(node.input(i));
  if (t == nullptr) return node.unsupported(std::string(what) + " must be a constant (or fold to one)");
  return t->ints();
}

// The same data under a new shape.
ConstTensor reshaped(const ConstTensor& t, Shape shape) { return ConstTensor{t.dtype, std::move(shape), t.data}; }

// Binds the output to `shape`: folded when the input is a constant, else an IR reshape.
Status emit_reshape(const OnnxNode& node, ImportContext& ctx, const Shape& shape) {
  if (const ConstTensor* c = ctx.constant(node.input(0))) {
    ctx.bind_constant(node.output(0), reshaped(*c, shape));
    return Status::Ok();
  }
  TP_ASSIGN_OR_RETURN(ValueId x, ctx.value(node.input(0)));
  TP_ASSIGN_OR_RETURN(ValueId y, ctx.add_op(node, OpKind::kReshape, {x}, Attrs{{"shape", shape}}));
  ctx.bind_value(node.output(0), y);
  return Status::Ok();
}

// Concatenates constants along `axis`. REQUIRES: shapes agree off the axis, same dtype.
ConstTensor fold_concat(const std::vector<const ConstTensor*>& parts, int64_t axis) {
  Shape shape = parts[0]->shape;
  shape[axis] = 0;
  for (const ConstTensor* p : parts) shape[axis] += p->shape[axis];
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= shape[d];
  const int64_t elem = dtype_bytes(parts[0]->dtype);
  auto bytes = std::make_shared<std::vector<std::byte>>(TensorType{shape, parts[0]->dtype}.num_bytes());
  std::byte* out = bytes->data();
  for (int64_t o = 0; o < outer; ++o) {
    for (const ConstTensor* p : parts) {
      const int64_t chunk = outer == 0 ? 0 : p->num_elements() / outer * elem;
      if (chunk > 0) std::memcpy(out, p->data->data() + o * chunk, chunk);
      out += chunk;
    }
  }
  return ConstTensor{parts[0]->dtype, std::move(shape), std::move(bytes)};
}

}  // namespace

Status convert_identity(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(1, 1));
  TP_RETURN_IF_ERROR(node.check_attrs({}));
  TP_RETURN_IF_ERROR(ctx.type(node.input(0)).status());
  ctx.alias(node.output(0), node.input(0));
  return Status::Ok();
}

Status convert_dropout(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(1, 3));
  TP_RETURN_IF_ERROR(node.check_attrs({"seed", "ratio"}));
  // Training mode with a ratio of 0 drops nothing either (Swin's F.dropout(attn, p=0.0)).
  const ConstTensor* ratio = node.has_input(1) ? ctx.constant(node.input(1)) : nullptr;
  const bool drops_nothing = ratio != nullptr && ratio->num_elements() == 1 && ratio->float_at(0) == 0.0;
  if (node.has_input(2) && !drops_nothing) {
    const ConstTensor* training = ctx.constant(node.input(2));
    if (training == nullptr || training->int_at(0) != 0)
      return node.unsupported("training_mode must be constant false (or the ratio constant 0)");
  }
  TP_ASSIGN_OR_RETURN(TensorType x_type, ctx.type(node.input(0)));
  if (node.has_output(1)) {
    // Inference keeps every element: the mask is all true (a constant, materialised only if read).
    const int64_t n = x_type.num_elements();
    if (n > kMaxFoldedElements) return node.unsupported("a mask of " + std::to_string(n) + " elements is too large");
    ctx.bind_constant(node.output(1), ConstTensor::from_ints(std::vector<int64_t>(n, 1), x_type.shape, DType::kInt32));
  }
  ctx.alias(node.output(0), node.input(0));
  return Status::Ok();
}

Status convert_concat(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(1, std::numeric_limits<int>::max()));
  TP_RETURN_IF_ERROR(node.check_attrs({"axis"}));
  if (!node.has_attr("axis")) return node.invalid("attribute axis is required");
  TP_ASSIGN_OR_RETURN(int64_t axis, node.attr_int("axis", 0));
  TP_ASSIGN_OR_RETURN(TensorType first, ctx.type(node.input(0)));
  TP_ASSIGN_OR_RETURN(axis, normalize_axis(node, axis, first.rank()));
  std::vector<const ConstTensor*> constants;
  for (int i = 0; i < node.num_inputs(); ++i) {
    const ConstTensor* c = ctx.constant(node.input(i));
    if (c == nullptr) break;
    if (c->dtype != first.dtype || c->type().rank() != first.rank())
      return node.invalid("inputs differ in type or rank");
    for (int64_t d = 0; d < first.rank(); ++d) {
      if (d != axis && c->shape[d] != first.shape[d]) return node.invalid("input shapes differ off the concat axis");
    }
    constants.push_back(c);
  }
  if (static_cast<int>(constants.size()) == node.num_inputs()) {
    ctx.bind_constant(node.output(0), fold_concat(constants, axis));
    return Status::Ok();
  }
  std::vector<ValueId> inputs;
  for (int i = 0; i < node.num_inputs(); ++i) {
    TP_ASSIGN_OR_RETURN(ValueId v, ctx.value(node.input(i)));
    inputs.push_back(v);
  }
  TP_ASSIGN_OR_RETURN(ValueId y, ctx.add_op(node, OpKind::kConcat, std::move(inputs), Attrs{{"axis", axis}}));
  ctx.bind_value(node.output(0), y);
  return Status::Ok();
}

Status convert_split(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(1, 2));
  TP_RETURN_IF_ERROR(node.check_attrs({"axis", "split"}));
  TP_ASSIGN_OR_RETURN(TensorType x_type, ctx.type(node.input(0)));
  TP_ASSIGN_OR_RETURN(int64_t axis, node.attr_int("axis", 0));
  TP_ASSIGN_OR_RETURN(axis, normalize_axis(node, axis, x_type.rank()));
  const int k = node.num_outputs();
  std::vector<int64_t> sizes;
  if (node.opset() >= 13) {
    if (node.has_attr("split")) return node.invalid("from opset 13 the split sizes are an input, not an attribute");
    if (node.has_input(1)) {
      TP_ASSIGN_OR_RETURN(sizes, constant_ints(node, ctx, 1, "split"));
    }
  } else {
    TP_ASSIGN_OR_RETURN(sizes, node.attr_ints("split", {}));
  }
  const int64_t dim = x_type.shape[axis];
  if (sizes.empty()) {
    if (k == 0 || dim % k != 0) return node.unsupported("an uneven split without sizes is not supported");
    sizes.assign(k, dim / k);
  }
  int64_t total = 0;
  for (int64_t s : sizes) total += s;
  if (static_cast<int>(sizes.size()) != k || total != dim) {
    return node.invalid("split sizes do not match the " + std::to_string(k) + " outputs and the axis length " +
                        std::to_string(dim));
  }
  TP_ASSIGN_OR_RETURN(ValueId x, ctx.value(node.input(0)));
  TP_ASSIGN_OR_RETURN(std::vector<ValueId> outs,
                      ctx.add_multi_output_op(node, OpKind::kSplit, {x}, Attrs{{"axis", axis}, {"sizes", sizes}}, k));
  for (int i = 0; i < k; ++i) {
    if (node.has_output(i)) ctx.bind_value(node.output(i), outs[i]);
  }
  return Status::Ok();
}

// ScatterND(data, indices, updates) on constants: a copy of data with the slices that indices
// name (its last axis: the leading coordinates) replaced by updates. Swin's attention mask.
Status convert_scatter_nd(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(3, 3));
  TP_RETURN_IF_ERROR(node.check_attrs({}));
  const ConstTensor* data = ctx.constant(node.input(0));
  const ConstTensor* indices = ctx.constant(node.input(1));
  const ConstTensor* updates = ctx.constant(node.input(2));
  if (data == nullptr || indices == nullptr || updates == nullptr)
    return node.unsupported("ScatterND is supported on constants only (shape arithmetic, masks)");
  if (updates->dtype != data->dtype) return node.invalid("updates and data differ in type");
  const int64_t q = indices->type().rank(), r = data->type().rank();
  if (q < 1) return node.invalid("indices must have rank 1 or more");
  const int64_t k = indices->shape.back();
  if (k < 1 || k > r) return node.invalid("the indices' last axis must be in [1, rank of data]");
  Shape want(indices->shape.begin(), indices->shape.end() - 1);
  want.insert(want.end(), data->shape.begin() + k, data->shape.end());
  if (updates->shape != want) return node.invalid("updates must have shape " + shape_to_string(want));
  const int64_t elem = dtype_bytes(data->dtype);
  int64_t slice = 1;  // elements of one updated slice
  for (int64_t d = k; d < r; ++d) slice *= data->shape[d];
  auto bytes = std::make_shared<std::vector<std::byte>>(*data->data);
  const std::vector<int64_t> idx = indices->ints();
  const int64_t tuples = static_cast<int64_t>(idx.size()) / k;
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t at = 0;
    for (int64_t d = 0; d < k; ++d) {
      const int64_t dim = data->shape[d];
      int64_t i = idx[t * k + d];
      if (i < -dim || i >= dim) return node.invalid("index " + std::to_string(i) + " is out of range");
      at = at * dim + (i < 0 ? i + dim : i);
    }
    std::memcpy(bytes->data() + at * slice * elem, updates->data->data() + t * slice * elem,
                static_cast<size_t>(slice * elem));
  }
  ctx.bind_constant(node.output(0), ConstTensor{data->dtype, data->shape, std::move(bytes)});
  return Status::Ok();
}

Status gather_one(const OnnxNode& node, ImportContext& ctx, int64_t axis, int64_t index, bool keep_axis) {
  TP_ASSIGN_OR_RETURN(TensorType x_type, ctx.type(node.input(0)));
  const int64_t rank = x_type.rank();
  TP_ASSIGN_OR_RETURN(axis, normalize_axis(node, axis, rank));
  const int64_t dim = x_type.shape[axis];
  if (index < -dim || index >= dim) return node.invalid("index " + std::to_string(index) + " is out of range");
  if (index < 0) index += dim;
  TP_ASSIGN_OR_RETURN(ValueId x, ctx.value(node.input(0)));
  Attrs attrs{{"starts", std::vector<int64_t>{index}},
              {"ends", std::vector<int64_t>{index + 1}},
              {"axes", std::vector<int64_t>{axis}},
              {"steps", std::vector<int64_t>{1}}};
  TP_ASSIGN_OR_RETURN(ValueId y, ctx.add_op(node, OpKind::kSlice, {x}, std::move(attrs), keep_axis ? "" : "/slice"));
  if (!keep_axis) {
    Shape shape = x_type.shape;
    shape.erase(shape.begin() + axis);
    TP_ASSIGN_OR_RETURN(y, ctx.add_op(node, OpKind::kReshape, {y}, Attrs{{"shape", shape}}));
  }
  ctx.bind_value(node.output(0), y);
  return Status::Ok();
}

Status convert_slice(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(3, 5));
  TP_RETURN_IF_ERROR(node.check_attrs({}));
  TP_ASSIGN_OR_RETURN(TensorType x_type, ctx.type(node.input(0)));
  const int64_t rank = x_type.rank();
  TP_ASSIGN_OR_RETURN(std::vector<int64_t> starts, constant_ints(node, ctx, 1, "starts"));
  TP_ASSIGN_OR_RETURN(std::vector<int64_t> ends, constant_ints(node, ctx, 2, "ends"));
  std::vector<int64_t> axes;
  std::vector<int64_t> steps(starts.size(), 1);
  if (node.has_input(3)) {
    TP_ASSIGN_OR_RETURN(axes, constant_ints(node, ctx, 3, "axes"));
  } else {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (node.has_input(4)) {
    TP_ASSIGN_OR_RETURN(steps, constant_ints(node, ctx, 4, "steps"));
  }
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
    return node.invalid("starts, ends, axes and steps differ in length");
  }
  // Canonical form: axes non-negative; for positive steps, starts and ends clamped into [0, dim].
  for (size_t i = 0; i < starts.size(); ++i) {
    TP_ASSIGN_OR_RETURN(axes[i], normalize_axis(node, axes[i], rank));
    if (steps[i] == 0) return node.invalid("a step of 0");
    if (steps[i] > 0) {
      const int64_t dim = x_type.shape[axes[i]];
      auto clamp = [dim](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + dim : v, 0, dim); };
      starts[i] = clamp(starts[i]);
      ends[i] = clamp(ends[i]);
    }
  }
  if (const ConstTensor* c = ctx.constant(node.input(0))) {  // shape arithmetic: fold
    // Per axis: first element, step and count (ONNX's clamping: [0, dim] for positive steps,
    // starts in [0, dim - 1] and ends in [-1, dim - 1] for negative ones).
    std::vector<int64_t> first(rank, 0), step(rank, 1), count(c->shape.begin(), c->shape.end());
    for (size_t i = 0; i < starts.size(); ++i) {
      const int64_t a = axes[i], dim = c->shape[a];
      step[a] = steps[i];
      if (steps[i] > 0) {
        first[a] = starts[i];
        count[a] = std::max<int64_t>(0, (ends[i] - starts[i] + steps[i] - 1) / steps[i]);
      } else {
        const int64_t s = std::clamp<int64_t>(starts[i] < 0 ? starts[i] + dim : starts[i], 0, dim - 1);
        const int64_t e =
            std::clamp<int64_t>(ends[i] < 0 ? std::max<int64_t>(ends[i], -dim - 1) + dim : ends[i], -1, dim - 1);
        first[a] = s;
        count[a] = dim == 0 ? 0 : std::max<int64_t>(0, (s - e + (-steps[i]) - 1) / -steps[i]);
      }
    }
    const int64_t elem = dtype_bytes(c->dtype);
    const Shape out_shape(count.begin(), count.end());
    auto bytes = std::make_shared<std::vector<std::byte>>(TensorType{out_shape, c->dtype}.num_bytes());
    std::vector<int64_t> in_strides(rank, 1);
    for (int64_t d = rank - 1; d-- > 0;) in_strides[d] = in_strides[d + 1] * c->shape[d + 1];
    const int64_t n = TensorType{out_shape, c->dtype}.num_elements();
    for (int64_t o = 0; o < n; ++o) {
      int64_t in = 0;
      for (int64_t d = rank - 1, rem = o; d >= 0; --d) {
        in += (first[d] + (rem % count[d]) * step[d]) * in_strides[d];
        rem /= count[d];
      }
      std::memcpy(bytes->data() + o * elem, c->data->data() + in * elem, static_cast<size_t>(elem));
    }
    ctx.bind_constant(node.output(0), ConstTensor{c->dtype, out_shape, std::move(bytes)});
    return Status::Ok();
  }
  TP_ASSIGN_OR_RETURN(ValueId x, ctx.value(node.input(0)));
  Attrs attrs{{"starts", starts}, {"ends", ends}, {"axes", axes}, {"steps", steps}};
  TP_ASSIGN_OR_RETURN(ValueId y, ctx.add_op(node, OpKind::kSlice, {x}, std::move(attrs)));
  ctx.bind_value(node.output(0), y);
  return Status::Ok();
}

Status convert_reshape(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(2, 2));
  TP_RETURN_IF_ERROR(node.check_attrs({"allowzero"}));
  TP_ASSIGN_OR_RETURN(TensorType x_type, ctx.type(node.input(0)));
  TP_ASSIGN_OR_RETURN(std::vector<int64_t> spec, constant_ints(node, ctx, 1, "the target shape"));
  TP_ASSIGN_OR_RETURN(int64_t allowzero, node.attr_int("allowzero", 0));
  // Resolve 0 (copy the input dim) and -1 (inferred) to check the element count.
  Shape shape = spec;
  int64_t known = 1;
  int inferred = -1;
  for (size_t i = 0; i < spec.size(); ++i) {
    if (spec[i] == 0 && allowzero == 0) {
      if (i >= x_type.shape.size()) return node.invalid("a 0 in the target shape past the input's rank");
      shape[i] = x_type.shape[i];
    }
    if (spec[i] == -1) {
      if (inferred >= 0) return node.invalid("more than one -1 in the target shape");
      inferred = static_cast<int>(i);
    } else if (shape[i] < 0) {
      return node.invalid("a negative dimension in the target shape");
    } else {
      known *= shape[i];
    }
  }
  if (inferred >= 0) {
    if (known == 0 || x_type.num_elements() % known != 0) return node.invalid("cannot infer the -1 dimension");
    shape[inferred] = x_type.num_elements() / known;
  }
  if (TensorType{shape, x_type.dtype}.num_elements() != x_type.num_elements()) {
    return node.invalid("cannot reshape " + x_type.to_string() + " to " + shape_to_string(shape));
  }
  if (const ConstTensor* c = ctx.constant(node.input(0))) {
    ctx.bind_constant(node.output(0), reshaped(*c, shape));
    return Status::Ok();
  }
  // The IR's reshape keeps ONNX's 0 and -1, so a later batch change still fits.
  if (allowzero != 0) spec = shape;
  TP_ASSIGN_OR_RETURN(ValueId x, ctx.value(node.input(0)));
  TP_ASSIGN_OR_RETURN(ValueId y, ctx.add_op(node, OpKind::kReshape, {x}, Attrs{{"shape", spec}}));
  ctx.bind_value(node.output(0), y);
  return Status::Ok();
}

Status convert_transpose(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(1, 1));
  TP_RETURN_IF_ERROR(node.check_attrs({"perm"}));
  TP_ASSIGN_OR_RETURN(TensorType x_type, ctx.type(node.input(0)));
  std::vector<int64_t> reversed;
  for (int64_t d = x_type.rank() - 1; d >= 0; --d) reversed.push_back(d);
  TP_ASSIGN_OR_RETURN(std::vector<int64_t> perm, node.attr_ints("perm", reversed));
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> identity(reversed.rbegin(), reversed.rend());
  if (sorted != identity) return node.invalid("perm is not a permutation of the input's axes");
  if (const ConstTensor* c = ctx.constant(node.input(0))) {
    ctx.bind_constant(node.output(0), fold_transpose(*c, perm));
    return Status::Ok();
  }
  TP_ASSIGN_OR_RETURN(ValueId x, ctx.value(node.input(0)));
  TP_ASSIGN_OR_RETURN(ValueId y, ctx.add_op(node, OpKind::kTranspose, {x}, Attrs{{"perm", perm}}));
  ctx.bind_value(node.output(0), y);
  return Status::Ok();
}

Status convert_flatten(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(1, 1));
  TP_RETURN_IF_ERROR(node.check_attrs({"axis"}));
  TP_ASSIGN_OR_RETURN(TensorType x_type, ctx.type(node.input(0)));
  TP_ASSIGN_OR_RETURN(int64_t axis, node.attr_int("axis", 1));
  const int64_t rank = x_type.rank();
  if (axis < -rank || axis > rank) return node.invalid("axis " + std::to_string(axis) + " is out of range");
  if (axis < 0) axis += rank;
  if (const ConstTensor* c = ctx.constant(node.input(0))) {
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= x_type.shape[d];
    ctx.bind_constant(node.output(0), reshaped(*c, {outer, outer == 0 ? 0 : c->num_elements() / outer}));
    return Status::Ok();
  }
  TP_ASSIGN_OR_RETURN(ValueId x, ctx.value(node.input(0)));
  TP_ASSIGN_OR_RETURN(ValueId y, ctx.add_op(node, OpKind::kFlatten, {x}, Attrs{{"axis", axis}}));
  ctx.bind_value(node.output(0), y);
  return Status::Ok();
}

Status convert_squeeze(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(1, 2));
  TP_RETURN_IF_ERROR(node.check_attrs({"axes"}));
  TP_ASSIGN_OR_RETURN(TensorType x_type, ctx.type(node.input(0)));
  std::vector<int64_t> axes;
  if (node.opset() >= 13) {
    if (node.has_input(1)) {
      TP_ASSIGN_OR_RETURN(axes, constant_ints(node, ctx, 1, "axes"));
    }
  } else {
    TP_ASSIGN_OR_RETURN(axes, node.attr_ints("axes", {}));
  }
  std::vector<bool> drop(x_type.rank(), false);
  for (int64_t a : axes) {
    TP_ASSIGN_OR_RETURN(int64_t d, normalize_axis(node, a, x_type.rank()));
    if (x_type.shape[d] != 1) return node.invalid("cannot squeeze axis " + std::to_string(a) + " of size != 1");
    drop[d] = true;
  }
  Shape shape;
  for (int64_t d = 0; d < x_type.rank(); ++d) {
    const bool squeezed = axes.empty() ? x_type.shape[d] == 1 : drop[d];
    if (!squeezed) shape.push_back(x_type.shape[d]);
  }
  return emit_reshape(node, ctx, shape);
}

Status convert_unsqueeze(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(1, 2));
  TP_RETURN_IF_ERROR(node.check_attrs({"axes"}));
  TP_ASSIGN_OR_RETURN(TensorType x_type, ctx.type(node.input(0)));
  std::vector<int64_t> axes;
  if (node.opset() >= 13) {
    if (!node.has_input(1)) return node.invalid("the axes input is required from opset 13");
    TP_ASSIGN_OR_RETURN(axes, constant_ints(node, ctx, 1, "axes"));
  } else {
    TP_ASSIGN_OR_RETURN(axes, node.attr_ints("axes", {}));
  }
  const int64_t rank = x_type.rank() + static_cast<int64_t>(axes.size());
  std::vector<bool> inserted(rank, false);
  for (int64_t a : axes) {
    TP_ASSIGN_OR_RETURN(int64_t d, normalize_axis(node, a, rank));
    if (inserted[d]) return node.invalid("axis " + std::to_string(a) + " appears twice");
    inserted[d] = true;
  }
  Shape shape;
  for (int64_t d = 0, src = 0; d < rank; ++d) shape.push_back(inserted[d] ? 1 : x_type.shape[src++]);
  return emit_reshape(node, ctx, shape);
}

}  // namespace tensorperf::ir::onnx_import
