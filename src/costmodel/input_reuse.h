// How long ago, in bytes touched, each input of a graph's kernels was written: the executor runs a
// model's fused operators in topological order, each at its last node (runtime/executor.cc), and
// between the step that writes an activation and a step that reads it, the steps in between write
// their outputs and read their weights. An input read after more bytes than the caches hold comes
// from memory, where the profiler, which runs one kernel over and over, found it cached.
#pragma once

#include <vector>

#include "base/status.h"
#include "ir/graph.h"
#include "ir/task_extraction.h"

namespace tensorperf::costmodel {

struct InputReuse {
  double bytes = 0;     // the input's bytes (a part of it, for a concat's or a view's source)
  double distance = 0;  // bytes written or read as weights by the steps between its writer and the reader
};

// For each of `fused` (ir::fuse_graph(g), in its order), its activation inputs: the values its
// nodes read that are written by another step, traced through layout ops (a concat's, reshape's or
// slice's input counts with its own writer). Graph inputs and constants are left out.
Result<std::vector<std::vector<InputReuse>>> input_reuse(
    const ir::Graph& g, const std::vector<std::pair<ir::FusedOp, ir::Workload>>& fused);

// Seconds to read from memory the inputs of `inputs` that more than `cache_bytes` were touched
// between being written and being read (a core's L2: what the profiler's repeated runs keep), at
// `mem_bandwidth_gbs`. 0 without a measured bandwidth or cache size.
double cold_input_seconds(const std::vector<InputReuse>& inputs, double cache_bytes, double mem_bandwidth_gbs);

}  // namespace tensorperf::costmodel
