// Recognises the layer normalisation torch.onnx exports before opset 17 (ReduceMean, Sub, Pow 2,
// ReduceMean, Add epsilon, Sqrt, Div, then Mul by gamma and Add beta) over trailing axes, and
// replaces its nine nodes by one node "LayerNormalization" of kInternalDomain (op_table.h) with the
// opset-17 attributes axis and epsilon. Private to src/ir/onnx/.
#pragma once

namespace onnx {
class GraphProto;
}  // namespace onnx

namespace tensorperf::ir::onnx_import {

// Rewrites every match in place; intermediate tensors must have no reader outside the pattern.
// Returns the number of matches.
int fuse_layer_norm(onnx::GraphProto& graph);

}  // namespace tensorperf::ir::onnx_import
