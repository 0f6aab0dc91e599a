// Which kernels of a graph the executor would run chained through a native layout, estimated before
// anything is compiled: the executor's rules (a value stays in its producer's native layout when
// every reader is a kernel taking that layout for it, and it is not a graph output; a kernel that
// adopts its producer's layout, a pool, takes it when every reader of the value can, and so does an
// element-wise plain kernel, for any of its full-shape inputs (kernels/onednn/layout_passing_kernel.h); a channel
// concat of channels-last kernel outputs, each read channels last by its other readers too, copies
// channels last when every reader of its output takes that layout, which the executor settles by
// assuming it of every such concat and dropping those that adoption does not bear out; other
// concats and views keep plain tensors),
// with each kernel's layout from Provider::expected_native_layout instead of the compiled kernel's.
// For predicting what a graph costs from per-kernel costs measured alone and chained.
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
  // An element-wise kernel that computes in its inputs' layout (kernels/onednn/layout_passing_kernel.h):
  // the bytes of the tensors it converts inside, each counted once (full-shape inputs that arrive
  // plain, an output that leaves plain for a reader that takes nothing else). 0 for other kernels.
  int64_t converted_bytes = 0;
};

// One entry per fused op of `fused` (ir::fuse_graph(g)), whose chosen configs' layout families
// (Provider::expected_native_layout; empty: plain) are `layouts`, in the same order (the graph's
// order: producers first). `channels_last_concats`, when given, receives the concats estimated to
// copy channels last (each keeps one more value in a native layout), in the graph's node order.
// REQUIRES: fused.size() == layouts.size(); g validates.
std::vector<ChainedIo> estimate_chained_io(const ir::Graph& g,
                                           std::span<const std::pair<ir::FusedOp, ir::Workload>> fused,
                                           std::span<const std::string> layouts,
                                           std::vector<ir::NodeId>* channels_last_concats = nullptr);

}  // namespace tensorperf::runtime
