// Arithmetic intensity of a leaf (flops per distinct byte and per cache line), the bytes it moves,
// the allocations live around it, and the product of its outer loops' extents.
#include "features/leaf_features.h"

namespace tensorperf::features {
namespace {

void extract(const LeafContext& ctx, std::vector<float>& out) {
  double bytes = 0, unique_bytes = 0, unique_lines = 0;
  for (const BufferTouch& b : ctx.buffers) {
    bytes += b.bytes;
    unique_bytes += b.unique_bytes;
    unique_lines += b.unique_lines;
  }
  const double flops = leaf_flops(ctx);
  out.push_back(log_feature(unique_bytes > 0 ? flops / unique_bytes : 0));
  out.push_back(log_feature(unique_lines > 0 ? flops / unique_lines : 0));
  out.push_back(log_feature(bytes));
  out.push_back(log_feature(unique_bytes));
  // Allocations at the root or in a loop around the leaf.
  double alloc_bytes = 0;
  int allocs = 0;
  for (const kernels::Allocation& a : ctx.nest.allocations) {
    bool around = a.loop < 0;
    for (int l : ctx.leaf.loops) around = around || l == a.loop;
    if (!around) continue;
    alloc_bytes += static_cast<double>(a.bytes);
    ++allocs;
  }
  out.push_back(log_feature(alloc_bytes));
  out.push_back(static_cast<float>(allocs));
  double outer = 1;
  for (size_t i = 0; i + 1 < ctx.leaf.loops.size(); ++i)
    outer *= ctx.nest.loops[static_cast<size_t>(ctx.leaf.loops[i])].trips;
  out.push_back(log_feature(ctx.leaf.loops.empty() ? 0 : outer));
}

}  // namespace

const LeafFeatureGroup& intensity_features() {
  static const LeafFeatureGroup g{"intensity",
                                  {"flops_per_byte", "flops_per_line", "bytes", "unique_bytes", "alloc_bytes",
                                   "allocations", "outer_product"},
                                  extract};
  return g;
}

}  // namespace tensorperf::features
