#include "runtime/memory_plan.h"

#include <gtest/gtest.h>

#include <random>

namespace tensorperf::runtime {
namespace {

// No two buffers alive at the same step overlap in memory, and every buffer fits in the arena.
void expect_valid(const std::vector<BufferLifetime>& b, const MemoryPlan& p) {
  ASSERT_EQ(p.offsets.size(), b.size());
  for (size_t i = 0; i < b.size(); ++i) {
    EXPECT_EQ(p.offsets[i] % 64, 0);
    EXPECT_LE(p.offsets[i] + b[i].bytes, p.arena_bytes);
    for (size_t j = i + 1; j < b.size(); ++j) {
      const bool same_time = b[i].first_step <= b[j].last_step && b[j].first_step <= b[i].last_step;
      const bool same_memory = p.offsets[i] < p.offsets[j] + b[j].bytes && p.offsets[j] < p.offsets[i] + b[i].bytes;
      EXPECT_FALSE(same_time && same_memory && b[i].bytes > 0 && b[j].bytes > 0) << i << " and " << j;
    }
  }
}

TEST(MemoryPlan, AChainReusesTwoBuffers) {
  // x0 -> x1 -> ... -> x9: each buffer is read by the next step only.
  std::vector<BufferLifetime> chain;
  for (int i = 0; i < 10; ++i) chain.push_back({1024, i, i + 1});
  MemoryPlan p = plan_memory(chain);
  expect_valid(chain, p);
  EXPECT_EQ(p.arena_bytes, 2 * 1024);
  EXPECT_EQ(p.naive_bytes, 10 * 1024);
}

TEST(MemoryPlan, BuffersAliveTogetherNeverShare) {
  std::vector<BufferLifetime> b = {{100, 0, 5}, {200, 0, 5}, {300, 2, 3}};
  MemoryPlan p = plan_memory(b);
  expect_valid(b, p);
  EXPECT_EQ(p.arena_bytes, 128 + 256 + 320);  // sizes rounded up to 64 bytes
}

TEST(MemoryPlan, RandomLifetimesArePlannedValidlyAndNeverAboveTheNaiveSum) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<BufferLifetime> b;
    const int n = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      const int first = static_cast<int>(rng() % 30);
      b.push_back({static_cast<int64_t>(rng() % 5000), first, first + static_cast<int>(rng() % 8)});
    }
    MemoryPlan p = plan_memory(b);
    expect_valid(b, p);
    EXPECT_LE(p.arena_bytes, p.naive_bytes);
  }
}

}  // namespace
}  // namespace tensorperf::runtime
