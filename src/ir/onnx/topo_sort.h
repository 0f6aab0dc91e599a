// Ordering an ONNX graph's nodes so producers precede consumers (files need not be sorted).
// Private to src/ir/onnx/.
#pragma once

#include <vector>

#include "base/status.h"

namespace onnx {
class GraphProto;
}  // namespace onnx

namespace tensorperf::ir::onnx_import {

// Node indices in dependency order; independent nodes keep their file order. Errors
// (InvalidArgument): a cycle, naming a node on it; a tensor two nodes produce; a node input that no
// node, initializer or graph input provides.
Result<std::vector<int>> topo_sort(const onnx::GraphProto& graph);

}  // namespace tensorperf::ir::onnx_import
