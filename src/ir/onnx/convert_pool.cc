// MaxPool -> max_pool2d, AveragePool -> avg_pool2d, GlobalAveragePool -> global_avg_pool2d, and Pad,
// which the importer keeps pending until an AveragePool or Conv absorbs it (PendingPad); ReduceMean
// over the spatial axes -> global_avg_pool2d.
#include <algorithm>

#include "ir/onnx/converters.h"
#include "ir/onnx/window.h"

namespace tensorperf::ir::onnx_import {
namespace {

Result<TensorType> image_type(const OnnxNode& node, ImportContext& ctx, const std::string& name) {
  TP_ASSIGN_OR_RETURN(TensorType t, ctx.type(name));
  if (t.rank() != 4)
    return node.unsupported("only 2-D pooling (4-D NCHW input) is supported, input is " + t.to_string());
  return t;
}

}  // namespace

Status convert_max_pool(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(1, 1));
  TP_RETURN_IF_ERROR(
      node.check_attrs({"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"}));
  if (node.has_output(1)) return node.unsupported("the Indices output is not supported");
  TP_ASSIGN_OR_RETURN(int64_t storage_order, node.attr_int("storage_order", 0));
  if (storage_order != 0) return node.unsupported("storage_order=1 is not supported");
  TP_ASSIGN_OR_RETURN(TensorType x_type, image_type(node, ctx, node.input(0)));
  TP_ASSIGN_OR_RETURN(Window2d w, read_window(node, x_type.shape, {}));
  TP_ASSIGN_OR_RETURN(int64_t ceil_mode, node.attr_int("ceil_mode", 0));
  TP_ASSIGN_OR_RETURN(ValueId x, ctx.value(node.input(0)));
  Attrs attrs{{"kernel", w.kernel},
              {"strides", w.strides},
              {"pads", w.pads},
              {"dilations", w.dilations},
              {"ceil_mode", ceil_mode}};
  TP_ASSIGN_OR_RETURN(ValueId y, ctx.add_op(node, OpKind::kMaxPool2d, {x}, std::move(attrs)));
  ctx.bind_value(node.output(0), y);
  return Status::Ok();
}

Status convert_average_pool(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(1, 1));
  TP_RETURN_IF_ERROR(
      node.check_attrs({"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"}));
  std::string x_name = node.input(0);
  const PendingPad* pad = ctx.pending_pad(x_name);
  if (pad != nullptr) x_name = pad->source;
  TP_ASSIGN_OR_RETURN(TensorType x_type, image_type(node, ctx, x_name));
  TP_ASSIGN_OR_RETURN(Window2d w, read_window(node, x_type.shape, {}));
  TP_ASSIGN_OR_RETURN(int64_t ceil_mode, node.attr_int("ceil_mode", 0));
  TP_ASSIGN_OR_RETURN(int64_t count_include_pad, node.attr_int("count_include_pad", 0));
  if (pad != nullptr) {
    // Zero padding then pooling averages over whole windows: the same as pooling with those pads
    // counted, provided the pool's own pads count too and no window runs past the padding.
    const bool own_pads = w.pads != std::vector<int64_t>{0, 0, 0, 0};
    if ((own_pads && count_include_pad == 0) || ceil_mode != 0) {
      return node.unsupported("a Pad before an AveragePool with ceil_mode=1 or count_include_pad=0 is not supported");
    }
    for (size_t i = 0; i < 4; ++i) w.pads[i] += pad->pads[i];
    count_include_pad = 1;
  }
  TP_ASSIGN_OR_RETURN(ValueId x, ctx.value(x_name));
  Attrs attrs{{"kernel", w.kernel},
              {"strides", w.strides},
              {"pads", w.pads},
              {"ceil_mode", ceil_mode},
              {"count_include_pad", count_include_pad}};
  if (w.dilations != std::vector<int64_t>{1, 1}) return node.unsupported("dilations are not supported for AveragePool");
  TP_ASSIGN_OR_RETURN(ValueId y, ctx.add_op(node, OpKind::kAvgPool2d, {x}, std::move(attrs)));
  ctx.bind_value(node.output(0), y);
  return Status::Ok();
}

Status convert_global_average_pool(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(1, 1));
  TP_RETURN_IF_ERROR(node.check_attrs({}));
  TP_RETURN_IF_ERROR(image_type(node, ctx, node.input(0)).status());
  TP_ASSIGN_OR_RETURN(ValueId x, ctx.value(node.input(0)));
  TP_ASSIGN_OR_RETURN(ValueId y, ctx.add_op(node, OpKind::kGlobalAvgPool2d, {x}));
  ctx.bind_value(node.output(0), y);
  return Status::Ok();
}

// ReduceMean over the two spatial axes of an NCHW tensor (torchvision's MNASNet and ShuffleNet-V2
// end with x.mean([2, 3])): a global average pool, reshaped to [N, C] without keepdims.
Status convert_reduce_mean(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(1, 1));
  TP_RETURN_IF_ERROR(node.check_attrs({"axes", "keepdims"}));
  TP_ASSIGN_OR_RETURN(TensorType x_type, ctx.type(node.input(0)));
  TP_ASSIGN_OR_RETURN(std::vector<int64_t> axes, node.attr_ints("axes", {}));
  TP_ASSIGN_OR_RETURN(int64_t keepdims, node.attr_int("keepdims", 1));
  const int64_t rank = x_type.rank();
  for (int64_t& a : axes) {
    if (a < -rank || a >= rank) return node.invalid("axis " + std::to_string(a) + " is out of range");
    if (a < 0) a += rank;
  }
  std::sort(axes.begin(), axes.end());
  if (rank != 4 || axes != std::vector<int64_t>{2, 3})
    return node.unsupported("only ReduceMean over the spatial axes [2, 3] of a 4-d tensor is supported");
  TP_RETURN_IF_ERROR(image_type(node, ctx, node.input(0)).status());
  TP_ASSIGN_OR_RETURN(ValueId x, ctx.value(node.input(0)));
  TP_ASSIGN_OR_RETURN(ValueId y, ctx.add_op(node, OpKind::kGlobalAvgPool2d, {x}));
  if (keepdims == 0) {
    const Attrs shape{{"shape", std::vector<int64_t>{x_type.shape[0], x_type.shape[1]}}};
    TP_ASSIGN_OR_RETURN(y, ctx.add_op(node, OpKind::kReshape, {y}, shape, "squeeze"));
  }
  ctx.bind_value(node.output(0), y);
  return Status::Ok();
}

Status convert_pad(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(1, 3));
  TP_RETURN_IF_ERROR(node.check_attrs({"mode"}));
  const Result<std::string> mode = node.attr_string("mode", "constant");
  if (!mode.ok()) return mode.status();
  if (*mode != "constant") return node.unsupported("mode=" + *mode + " is not supported (only constant)");
  const ConstTensor* pads_tensor = node.has_input(1) ? ctx.constant(node.input(1)) : nullptr;
  if (pads_tensor == nullptr) return node.unsupported("pads must be a constant input");
  if (node.has_input(2)) {
    const ConstTensor* value = ctx.constant(node.input(2));
    if (value == nullptr || value->num_elements() != 1 || value->float_at(0) != 0.0) {
      return node.unsupported("only zero padding is supported");
    }
  }
  TP_ASSIGN_OR_RETURN(TensorType x_type, ctx.type(node.input(0)));
  const std::vector<int64_t> p = pads_tensor->ints();  // [x1_begin .. xn_begin, x1_end .. xn_end]
  if (std::all_of(p.begin(), p.end(), [](int64_t v) { return v == 0; })) {
    // Nothing to pad (Swin's windows pad a map to a multiple of the window: none when it divides).
    ctx.alias(node.output(0), node.input(0));
    return Status::Ok();
  }
  if (x_type.rank() != 4 || p.size() != 8 || p[0] != 0 || p[1] != 0 || p[4] != 0 || p[5] != 0) {
    return node.unsupported("only padding of the two spatial axes of a 4-D NCHW tensor is supported");
  }
  for (int64_t v : p) {
    if (v < 0) return node.unsupported("negative pads (cropping) are not supported");
  }
  ctx.bind_pad(node.output(0), PendingPad{node.input(0), {p[2], p[3], p[6], p[7]}, node.describe()});
  return Status::Ok();
}

}  // namespace tensorperf::ir::onnx_import
