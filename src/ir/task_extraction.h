// Task extraction: a model's distinct workloads with their counts, like TVM's extract_from_program.
// Fusion rules (docs/workloads.md): batch_norm after a conv2d folds into it (adds "bias"); after an
// anchor (conv2d, dense, matmul, batch_matmul), a chain of bias adds, one residual add and
// activations fuses into its epilogue while each intermediate has a single consumer; layout ops
// (reshape, flatten, transpose, concat, split, slice) are data movement, not workloads; every other op
// (pools, softmax, layer_norm, unfused elementwise) is a workload of its own.
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "ir/graph.h"
#include "ir/workload.h"

namespace tensorperf::ir {

// One fused operator instance in the graph: the node computing the main op, then the nodes fused
// into its epilogue, in application order.
struct FusedOp {
  NodeId anchor = kNoNode;
  std::vector<NodeId> fused;
};

struct Task {
  Workload workload;
  int64_t count = 0;               // instances in the graph
  std::vector<FusedOp> instances;  // size() == count
  double total_flops() const { return workload.flops() * static_cast<double>(count); }
};

// Tasks in order of first appearance in topological order. REQUIRES: g.validate() is OK.
Result<std::vector<Task>> extract_tasks(const Graph& g);
// Every fused operator of the graph in topological order (what the runtime executes).
Result<std::vector<std::pair<FusedOp, Workload>>> fuse_graph(const Graph& g);

}  // namespace tensorperf::ir
