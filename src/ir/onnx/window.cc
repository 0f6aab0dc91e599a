#include "ir/onnx/window.h"

#include <algorithm>
#include <string>

namespace tensorperf::ir::onnx_import {

Result<Window2d> read_window(const OnnxNode& node, const Shape& input, const std::vector<int64_t>& weight_kernel) {
  Window2d w;
  TP_ASSIGN_OR_RETURN(w.kernel, node.attr_ints("kernel_shape", weight_kernel));
  if (w.kernel.size() != 2) return node.unsupported("only 2-D windows are supported (kernel_shape needs 2 values)");
  if (!weight_kernel.empty() && w.kernel != weight_kernel) {
    return node.invalid("kernel_shape does not match the weight's spatial dims");
  }
  TP_ASSIGN_OR_RETURN(w.strides, node.attr_ints("strides", {1, 1}));
  TP_ASSIGN_OR_RETURN(w.dilations, node.attr_ints("dilations", {1, 1}));
  TP_ASSIGN_OR_RETURN(std::vector<int64_t> pads, node.attr_ints("pads", {0, 0, 0, 0}));
  TP_ASSIGN_OR_RETURN(std::string auto_pad, node.attr_string("auto_pad", "NOTSET"));
  if (w.strides.size() != 2 || w.dilations.size() != 2 || pads.size() != 4) {
    return node.invalid("strides and dilations need 2 values and pads 4");
  }
  for (size_t i = 0; i < 2; ++i) {
    if (w.kernel[i] < 1 || w.strides[i] < 1 || w.dilations[i] < 1) {
      return node.invalid("kernel_shape, strides and dilations must be positive");
    }
  }
  if (auto_pad == "NOTSET") {
    w.pads = pads;  // ONNX's [x1_begin, x2_begin, x1_end, x2_end] is the IR's [top, left, bottom, right]
  } else if (auto_pad == "VALID") {
    w.pads = {0, 0, 0, 0};
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    w.pads.assign(4, 0);
    for (size_t i = 0; i < 2; ++i) {
      const int64_t in = input[2 + i];
      const int64_t out = (in + w.strides[i] - 1) / w.strides[i];
      const int64_t extent = (w.kernel[i] - 1) * w.dilations[i] + 1;
      const int64_t total = std::max<int64_t>(0, (out - 1) * w.strides[i] + extent - in);
      const int64_t small = total / 2;
      w.pads[i] = auto_pad == "SAME_UPPER" ? small : total - small;
      w.pads[i + 2] = total - w.pads[i];
    }
  } else {
    return node.unsupported("auto_pad=" + auto_pad + " is not supported (NOTSET, VALID, SAME_UPPER, SAME_LOWER are)");
  }
  return w;
}

}  // namespace tensorperf::ir::onnx_import
