// Which kernels of a graph the executor would run chained through a native layout, estimated before
// anything is compiled: the executor's rule (a value stays in its producer's native layout when
// every reader is a kernel taking that layout for it, and it is not a graph output; Executor keeps
// it for views and concats too, which this sees as readers that are not kernels), with each
// kernel's layout from Provider::expected_native_layout instead of the compiled kernel's. For
// predicting what a graph costs from per-kernel costs measured alone and chained.
#pragma once

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "ir/task_extraction.h"

namespace tensorperf::runtime {

struct ChainedIo {
  bool input = false;   // the activation input (kernel input 0) arrives in the kernel's native layout
  bool output = false;  // the output stays in it
};

// One entry per fused op of `fused` (ir::fuse_graph(g)), whose chosen configs' layout families
// (Provider::expected_native_layout; empty: plain) are `layouts`, in the same order.
// REQUIRES: fused.size() == layouts.size(); g validates.
std::vector<ChainedIo> estimate_chained_io(const ir::Graph& g,
                                           std::span<const std::pair<ir::FusedOp, ir::Workload>> fused,
                                           std::span<const std::string> layouts);

}  // namespace tensorperf::runtime
