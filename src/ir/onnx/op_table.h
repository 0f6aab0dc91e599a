// The one table of ONNX operators the importer converts: (domain, op type) to a converter.
// Private to src/ir/onnx/.
#pragma once

#include <string_view>

#include "base/status.h"
#include "ir/onnx/import_context.h"
#include "ir/onnx/onnx_node.h"

namespace tensorperf::ir::onnx_import {

// Converts one node: reads its inputs from `ctx`, adds IR nodes or folds constants, and binds every
// output it produces. Errors name the node (OnnxNode::unsupported / invalid).
using Converter = Status (*)(const OnnxNode& node, ImportContext& ctx);

// The domain of nodes the importer itself makes from recognised patterns (pattern_matcher.h).
inline constexpr std::string_view kInternalDomain = "ai.tensorperf.internal";

// The converter for `op_type` in `domain` ("" and "ai.onnx" are the default domain), or null.
Converter find_converter(std::string_view domain, std::string_view op_type);

}  // namespace tensorperf::ir::onnx_import
