#include "runtime/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace tensorperf::runtime {

MemoryPlan plan_memory(const std::vector<BufferLifetime>& buffers, int64_t alignment) {
  auto aligned = [alignment](int64_t n) { return (n + alignment - 1) / alignment * alignment; };
  MemoryPlan plan;
  plan.offsets.assign(buffers.size(), 0);
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  // Largest first; ties by earlier start, then index, so the plan is deterministic.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (buffers[a].bytes != buffers[b].bytes) return buffers[a].bytes > buffers[b].bytes;
    return buffers[a].first_step < buffers[b].first_step;
  });
  struct Placed {
    int64_t begin, end;
    int first, last;
  };
  std::vector<Placed> placed;
  for (size_t i : order) {
    const BufferLifetime& b = buffers[i];
    const int64_t size = aligned(std::max<int64_t>(b.bytes, 1));
    plan.naive_bytes += size;
    // Address ranges of placed buffers alive at the same time, by start address.
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (const Placed& p : placed)
      if (p.first <= b.last_step && b.first_step <= p.last) busy.push_back({p.begin, p.end});
    std::sort(busy.begin(), busy.end());
    int64_t offset = 0;
    for (const auto& [begin, end] : busy) {
      if (offset + size <= begin) break;  // fits in the gap before this range
      offset = std::max(offset, aligned(end));
    }
    plan.offsets[i] = offset;
    placed.push_back({offset, offset + size, b.first_step, b.last_step});
    plan.arena_bytes = std::max(plan.arena_bytes, offset + size);
  }
  return plan;
}

}  // namespace tensorperf::runtime
