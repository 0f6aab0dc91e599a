#include "features/leaf_context.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

namespace tensorperf::features {

using kernels::Access;
using kernels::kUnknownStride;
using kernels::Leaf;
using kernels::Loop;
using kernels::LoopNest;

float log_feature(double x) { return static_cast<float>(std::log2(1.0 + std::max(0.0, x))); }

namespace {

// Distinct elements and cache lines of one access over the leaf's loops: every loop along which the
// index moves contributes its extent (loops are assumed not to alias), the vector its lanes; lines
// come from the smallest stride: a run of elements closer than a line shares lines.
struct Footprint {
  double elements = 1, lines = 1, innermost_stride = 0;
};

Footprint footprint(const LoopNest& nest, const Leaf& leaf, const Access& a, size_t from_loop = 0) {
  Footprint f;
  struct Dim {
    double extent;
    double stride;  // |stride| in elements, an unknown one counted as far apart
  };
  std::vector<Dim> dims;
  for (size_t i = from_loop; i < a.strides.size() && i < leaf.loops.size(); ++i) {
    if (a.strides[i] == 0) continue;
    const double extent = nest.loops[static_cast<size_t>(leaf.loops[i])].trips;
    const double stride = a.strides[i] == kUnknownStride ? 1e9 : std::abs(static_cast<double>(a.strides[i]));
    dims.push_back({extent, stride});
  }
  if (a.lanes > 1 && a.lane_stride != 0)
    dims.push_back({static_cast<double>(a.lanes),
                    a.lane_stride == kUnknownStride ? 1e9 : std::abs(static_cast<double>(a.lane_stride))});
  // Innermost stride: the lanes' if a vector access, else the innermost loop's.
  if (a.lanes > 1) f.innermost_stride = a.lane_stride == kUnknownStride ? 1e9 : std::abs(static_cast<double>(a.lane_stride));
  else if (!a.strides.empty())
    f.innermost_stride = a.strides.back() == kUnknownStride ? 1e9 : std::abs(static_cast<double>(a.strides.back()));
  for (const Dim& d : dims) f.elements *= d.extent;
  if (dims.empty()) return f;
  // A run: the smallest-stride dim, extended by each next dim that continues it exactly (a dim of
  // stride s and extent e followed by one of stride s * e is one longer run).
  std::sort(dims.begin(), dims.end(), [](const Dim& x, const Dim& y) { return x.stride < y.stride; });
  Dim run = dims[0];
  for (size_t i = 1; i < dims.size() && dims[i].stride == run.stride * run.extent; ++i) run.extent *= dims[i].extent;
  const double lines_per_run = run.stride * a.elem_bytes >= kCacheLineBytes
                                   ? run.extent
                                   : std::ceil((run.stride * a.elem_bytes * (run.extent - 1) + a.elem_bytes) /
                                               kCacheLineBytes);
  f.lines = f.elements / run.extent * lines_per_run;
  return f;
}

// Cache lines one execution of the access touches.
double lines_per_access(const Access& a) {
  if (a.lanes <= 1 || a.lane_stride == 0) return 1;
  if (a.lane_stride == kUnknownStride) return a.lanes;
  const double stride_bytes = std::abs(static_cast<double>(a.lane_stride)) * a.elem_bytes;
  if (stride_bytes >= kCacheLineBytes) return a.lanes;
  return std::ceil((stride_bytes * (a.lanes - 1) + a.elem_bytes) / kCacheLineBytes);
}

}  // namespace

LeafContext make_leaf_context(const LoopNest& nest, const Leaf& leaf) {
  LeafContext ctx{nest, leaf, leaf.executions(nest.loops), {}};
  std::map<std::string, size_t> at;
  std::map<std::string, std::vector<const Access*>> by_buffer;
  for (const Access& a : leaf.accesses) {
    if (!at.count(a.buffer)) {
      at[a.buffer] = ctx.buffers.size();
      ctx.buffers.push_back(BufferTouch{a.buffer});
    }
    by_buffer[a.buffer].push_back(&a);
  }
  for (BufferTouch& b : ctx.buffers) {
    const kernels::BufferInfo* info = nest.find_buffer(b.buffer);
    double cap_elements = 0;
    if (info != nullptr) cap_elements = static_cast<double>(info->bytes) / info->elem_bytes;
    for (const kernels::Allocation& al : nest.allocations)
      if (al.name == b.buffer) cap_elements = static_cast<double>(al.bytes) / 4;
    for (const Access* a : by_buffer[b.buffer]) {
      (a->is_store ? b.write : b.read) = true;
      const Footprint f = footprint(nest, leaf, *a);
      const double n = ctx.executions * a->lanes * static_cast<double>(a->count);
      b.accesses += n;
      b.bytes += n * a->elem_bytes;
      double unique = f.elements, lines = f.lines;
      if (cap_elements > 0 && unique > cap_elements) {
        lines *= cap_elements / unique;
        unique = cap_elements;
      }
      b.unique_elements = std::max(b.unique_elements, unique);
      b.unique_bytes = std::max(b.unique_bytes, unique * a->elem_bytes);
      b.unique_lines = std::max(b.unique_lines, lines);
      b.lines += ctx.executions * static_cast<double>(a->count) * lines_per_access(*a);
      b.innermost_stride = std::max(b.innermost_stride, f.innermost_stride);
    }
  }
  // Reuse: the innermost loop along which some access of the buffer does not move reuses it.
  for (BufferTouch& b : ctx.buffers) {
    int reusing = -1;
    for (const Access* a : by_buffer[b.buffer])
      for (int i = static_cast<int>(a->strides.size()) - 1; i >= 0; --i)
        if (a->strides[static_cast<size_t>(i)] == 0) {
          reusing = std::max(reusing, i);
          break;
        }
    if (reusing >= 0) {
      b.reuse = ReuseType::kLoopMultipleRead;
      b.reuse_count = nest.loops[static_cast<size_t>(leaf.loops[static_cast<size_t>(reusing)])].trips;
      double inner = 1;
      for (size_t i = static_cast<size_t>(reusing) + 1; i < leaf.loops.size(); ++i)
        inner *= nest.loops[static_cast<size_t>(leaf.loops[i])].trips;
      b.reuse_iterations = inner;
      // Bytes in between: what every access of the leaf touches over the loops inside the reusing one.
      for (const Access& other : leaf.accesses)
        b.reuse_bytes += footprint(nest, leaf, other, static_cast<size_t>(reusing) + 1).elements * other.elem_bytes;
    } else if (b.read && b.write) {
      b.reuse = ReuseType::kSerialReadWrite;
      b.reuse_count = 1;
      b.reuse_iterations = 1;
      b.reuse_bytes = b.bytes / std::max(1.0, ctx.executions);
    }
  }
  std::stable_sort(ctx.buffers.begin(), ctx.buffers.end(),
                   [](const BufferTouch& x, const BufferTouch& y) { return x.unique_bytes > y.unique_bytes; });
  return ctx;
}

}  // namespace tensorperf::features
