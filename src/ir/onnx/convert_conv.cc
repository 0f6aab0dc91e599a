// Conv -> conv2d (NCHW input, OIHW weight, optional bias). A zero Pad read by the conv merges into
// its pads.
#include "ir/onnx/converters.h"
#include "ir/onnx/window.h"

namespace tensorperf::ir::onnx_import {

Status convert_conv(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(2, 3));
  TP_RETURN_IF_ERROR(node.check_attrs({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}));
  std::string x_name = node.input(0);
  std::vector<int64_t> extra_pads = {0, 0, 0, 0};
  if (const PendingPad* pad = ctx.pending_pad(x_name)) {
    TP_ASSIGN_OR_RETURN(std::string auto_pad, node.attr_string("auto_pad", "NOTSET"));
    if (auto_pad != "NOTSET") return node.unsupported("a Pad before a Conv with auto_pad=" + auto_pad);
    extra_pads = pad->pads;
    x_name = pad->source;
  }
  TP_ASSIGN_OR_RETURN(TensorType x_type, ctx.type(x_name));
  TP_ASSIGN_OR_RETURN(TensorType w_type, ctx.type(node.input(1)));
  if (x_type.rank() != 4 || w_type.rank() != 4) {
    return node.unsupported("only 2-D convolutions (4-D input and weight) are supported, input is " +
                            x_type.to_string());
  }
  TP_ASSIGN_OR_RETURN(Window2d w, read_window(node, x_type.shape, {w_type.shape[2], w_type.shape[3]}));
  for (size_t i = 0; i < 4; ++i) w.pads[i] += extra_pads[i];
  TP_ASSIGN_OR_RETURN(int64_t group, node.attr_int("group", 1));
  std::vector<ValueId> inputs;
  for (int i = 0; i < node.num_inputs(); ++i) {
    if (!node.has_input(i)) continue;
    TP_ASSIGN_OR_RETURN(ValueId v, ctx.value(i == 0 ? x_name : node.input(i)));
    inputs.push_back(v);
  }
  Attrs attrs{{"strides", w.strides}, {"pads", w.pads}, {"dilations", w.dilations}, {"groups", group}};
  TP_ASSIGN_OR_RETURN(ValueId y, ctx.add_op(node, OpKind::kConv2d, std::move(inputs), std::move(attrs)));
  ctx.bind_value(node.output(0), y);
  return Status::Ok();
}

}  // namespace tensorperf::ir::onnx_import
