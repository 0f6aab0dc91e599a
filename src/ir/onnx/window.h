// The sliding-window geometry shared by Conv and the pools: kernel, strides, pads (IR order top,
// left, bottom, right), dilations, with ONNX's auto_pad resolved. Private to src/ir/onnx/.
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "ir/onnx/onnx_node.h"
#include "ir/tensor_type.h"

namespace tensorperf::ir::onnx_import {

struct Window2d {
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides;
  std::vector<int64_t> pads;
  std::vector<int64_t> dilations;
};

// Reads kernel_shape (Conv may omit it: `weight_kernel` then gives it; pass {} for pools), strides,
// dilations, pads and auto_pad (NOTSET, VALID, SAME_UPPER, SAME_LOWER). REQUIRES: input is 4-D.
// Errors name the node: a window that is not 2-D, or an unknown auto_pad.
Result<Window2d> read_window(const OnnxNode& node, const Shape& input, const std::vector<int64_t>& weight_kernel);

}  // namespace tensorperf::ir::onnx_import
