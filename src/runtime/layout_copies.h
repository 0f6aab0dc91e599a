// Which layout ops of a graph the executor runs as copies, estimated before anything is compiled:
// the executor's rules (reshape and flatten are views of their input; a split along an axis with
// one outer block gives views; a concat along such an axis whose inputs are each written by a step
// of their own, and placed in no other concat, is a view of its parts and moves nothing; a
// channels-last concat copies with the kernels' threads; every other layout op copies on one thread).
// For predicting what a graph's data movement costs next to its kernels (tensorperf predict).
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "ir/task_extraction.h"

namespace tensorperf::runtime {

struct LayoutCopy {
  ir::NodeId node = -1;
  int64_t bytes = 0;           // bytes read plus bytes written
  bool channels_last = false;  // a channels-last concat (copies with the kernels' threads)
};

// The layout nodes of `g` that run as copies, in the graph's order. `fused` is ir::fuse_graph(g);
// `channels_last_concats` the concats that copy channels last (estimate_chained_io's).
// REQUIRES: g validates.
std::vector<LayoutCopy> estimate_layout_copies(const ir::Graph& g,
                                               std::span<const std::pair<ir::FusedOp, ir::Workload>> fused,
                                               std::span<const ir::NodeId> channels_last_concats);

// Seconds a copy of `bytes` (read plus written) takes at `bandwidth_gbs`, the device's measured
// triad bandwidth at its thread count, whether it copies with one thread or with all of them: on
// the 2-core EPYC (2026-11-27) copies on one thread moved 43-100 GB/s and on two 35-200 GB/s, the
// triad 59-73 (docs/costmodel.md, "Layout copies").
double copy_seconds(int64_t bytes, double bandwidth_gbs);

}  // namespace tensorperf::runtime
