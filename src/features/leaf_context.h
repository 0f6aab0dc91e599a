// What the per-leaf feature groups read: the loop nest, one leaf, and that leaf's buffer accesses
// summarised per buffer (footprints, cache lines, reuse), computed once per leaf.
#pragma once

#include <string>
#include <vector>

#include "kernels/loop_nest.h"

namespace tensorperf::features {

enum class ReuseType { kNone, kLoopMultipleRead, kSerialReadWrite };

// One buffer as a leaf touches it over all iterations of its loops (Ansor's buffer-access features).
struct BufferTouch {
  std::string buffer;
  bool read = false, write = false;
  double accesses = 0;        // element accesses, repeats included (executions x lanes x count)
  double unique_elements = 0; // distinct elements touched (independent strided dims; capped by the buffer)
  double bytes = 0;           // accesses x element bytes
  double unique_bytes = 0;
  double lines = 0;           // cache lines touched, repeats included
  double unique_lines = 0;    // distinct cache lines
  ReuseType reuse = ReuseType::kNone;
  double reuse_iterations = 0;  // iterations between two uses of an element (loops inside the reusing one)
  double reuse_bytes = 0;       // bytes the leaf touches in between
  double reuse_count = 0;       // how often an element is reused (the reusing loop's extent)
  double innermost_stride = 0;  // elements between consecutive innermost accesses (lanes count as innermost)
};

struct LeafContext {
  const kernels::LoopNest& nest;
  const kernels::Leaf& leaf;
  double executions = 1;             // iterations of the leaf's innermost loop body
  std::vector<BufferTouch> buffers;  // most unique bytes first
};

constexpr int kCacheLineBytes = 64;

LeafContext make_leaf_context(const kernels::LoopNest& nest, const kernels::Leaf& leaf);

// log2(1 + max(x, 0)): counts and sizes span orders of magnitude.
float log_feature(double x);

}  // namespace tensorperf::features
