// The loop nest around a leaf: depth, iterations, the innermost extents, and the vectorised,
// unrolled and parallel lengths with their positions (as Ansor describes a statement's loops).
#include <algorithm>

#include "features/leaf_features.h"

namespace tensorperf::features {
namespace {

constexpr size_t kInnermost = 4;  // extents of this many innermost loops

void extract(const LeafContext& ctx, std::vector<float>& out) {
  const kernels::Leaf& leaf = ctx.leaf;
  const auto& loops = ctx.nest.loops;
  auto extent = [&](size_t i) { return loops[static_cast<size_t>(leaf.loops[i])].trips; };
  const size_t depth = leaf.loops.size();
  out.push_back(static_cast<float>(depth));
  out.push_back(log_feature(ctx.executions));
  for (size_t k = 0; k < kInnermost; ++k) out.push_back(k < depth ? log_feature(extent(depth - 1 - k)) : 0.0f);
  // Vectorised: Halide vectorises the innermost dimension of the store.
  out.push_back(leaf.lanes > 1 ? 1.0f : 0.0f);
  out.push_back(log_feature(leaf.lanes));
  // Unrolled: copies of the store side by side in the innermost loop body.
  out.push_back(leaf.unrolled > 1 ? 1.0f : 0.0f);
  out.push_back(log_feature(static_cast<double>(leaf.unrolled)));
  // Parallel: how many enclosing loops, their product, the outermost one's position (its depth over
  // the leaf's, 1 when none) and the innermost parallel loop's extent.
  int parallel = 0;
  double product = 1, innermost = 0;
  double position = 1;
  for (size_t i = 0; i < depth; ++i)
    if (loops[static_cast<size_t>(leaf.loops[i])].kind == kernels::LoopKind::kParallel) {
      if (parallel == 0) position = depth > 1 ? static_cast<double>(i) / static_cast<double>(depth - 1) : 0.0;
      ++parallel;
      product *= extent(i);
      innermost = extent(i);
    }
  out.push_back(static_cast<float>(parallel));
  out.push_back(log_feature(parallel ? product : 0));
  out.push_back(static_cast<float>(position));
  out.push_back(log_feature(innermost));
  // The leaf's role: an initialisation (no loads, no arithmetic) or a store to the program's output.
  bool loads = std::any_of(leaf.accesses.begin(), leaf.accesses.end(), [](const kernels::Access& a) { return !a.is_store; });
  const kernels::BufferInfo* b = ctx.nest.find_buffer(leaf.buffer);
  out.push_back(loads ? 0.0f : 1.0f);
  out.push_back(b != nullptr && b->is_output ? 1.0f : 0.0f);
}

}  // namespace

const LeafFeatureGroup& loop_features() {
  static const LeafFeatureGroup g{"loop",
                                  {"depth", "executions", "extent_in0", "extent_in1", "extent_in2", "extent_in3",
                                   "vectorized", "vector_lanes", "unrolled", "unroll_copies", "parallel_loops",
                                   "parallel_product", "parallel_position", "parallel_innermost", "is_init",
                                   "stores_output"},
                                  extract};
  return g;
}

}  // namespace tensorperf::features
