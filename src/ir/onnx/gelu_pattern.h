// Recognises the exact GELU that torch.onnx exports, x * 0.5 * (1 + erf(x / sqrt(2))) (Div by sqrt 2
// or Mul by 1/sqrt 2; the 0.5 applied last or to x first), and replaces its five nodes by one node
// "Gelu" of kInternalDomain (op_table.h). Private to src/ir/onnx/.
#pragma once

namespace onnx {
class GraphProto;
}  // namespace onnx

namespace tensorperf::ir::onnx_import {

// Rewrites every match in place; intermediate tensors must have no reader outside the pattern. Any
// Erf left over stays, and the importer reports it as unsupported. Returns the number of matches.
int fuse_gelu(onnx::GraphProto& graph);

}  // namespace tensorperf::ir::onnx_import
