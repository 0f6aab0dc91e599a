// Static memory plan of a graph run: every activation buffer gets a fixed offset in one arena, and
// buffers whose lifetimes do not overlap share memory. Lifetimes are inclusive step intervals
// [first_step, last_step]: a buffer is written at its first step and read until its last, so a
// step's output never shares memory with that step's inputs. Offsets come from the greedy-by-size
// heuristic (largest buffer first, each at the lowest aligned offset that does not collide with a
// placed buffer alive at the same time), as TensorFlow Lite's arena planner does.
#pragma once

#include <cstdint>
#include <vector>

namespace tensorperf::runtime {

struct BufferLifetime {
  int64_t bytes = 0;
  int first_step = 0;
  int last_step = 0;  // >= first_step
};

struct MemoryPlan {
  std::vector<int64_t> offsets;  // per buffer, multiples of the alignment
  int64_t arena_bytes = 0;       // peak: the arena's size
  int64_t naive_bytes = 0;       // every buffer in memory of its own (aligned sizes summed)
};

// REQUIRES: alignment is a power of two; bytes >= 0.
MemoryPlan plan_memory(const std::vector<BufferLifetime>& buffers, int64_t alignment = 64);

}  // namespace tensorperf::runtime
