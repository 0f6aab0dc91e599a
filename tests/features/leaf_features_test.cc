// Leaf features of hand-written loop nests against values computed by hand.
#include "features/leaf_features.h"

#include <cmath>

#include <gtest/gtest.h>

#include "features/program_features.h"

namespace tensorperf::features {
namespace {

using kernels::Access;
using kernels::Leaf;
using kernels::Loop;
using kernels::LoopKind;
using kernels::LoopNest;

float lg(double x) { return static_cast<float>(std::log2(1.0 + x)); }

// The value of leaf feature `name` of the nest's leaf `i`.
float feature(const LoopNest& nest, const std::string& name, size_t i = 0) {
  const auto& names = leaf_feature_names();
  auto it = std::find(names.begin(), names.end(), name);
  EXPECT_NE(it, names.end()) << name;
  if (it == names.end()) return NAN;
  return leaf_features(make_leaf_context(nest, nest.leaves.at(i)))[static_cast<size_t>(it - names.begin())];
}

Access access(std::string buffer, bool store, std::vector<int64_t> strides, int lanes = 1, int64_t lane_stride = 0) {
  Access a;
  a.buffer = std::move(buffer);
  a.is_store = store;
  a.strides = std::move(strides);
  a.lanes = lanes;
  a.lane_stride = lane_stride;
  return a;
}

// for i in 0..64: out[8i .. 8i+8] = in[8i .. 8i+8] * 2   (vectorised by 8)
LoopNest vectorised() {
  LoopNest n;
  n.loops.push_back(Loop{"i", 64, 64, LoopKind::kSerial, -1, 0, 0});
  Leaf leaf;
  leaf.buffer = "out";
  leaf.loops = {0};
  leaf.parent = 0;
  leaf.depth = 1;
  leaf.preorder = 1;
  leaf.lanes = 8;
  leaf.ops.float_mul = 1;
  leaf.accesses = {access("in", false, {8}, 8, 1), access("out", true, {8}, 8, 1)};
  n.leaves.push_back(leaf);
  n.buffers = {{"in", 2048, 4, true, false}, {"out", 2048, 4, false, true}};
  return n;
}

TEST(LeafFeatures, VectorisedLoop) {
  LoopNest n = vectorised();
  EXPECT_FLOAT_EQ(feature(n, "ops.float_mul"), lg(512));  // 64 iterations x 8 lanes
  EXPECT_FLOAT_EQ(feature(n, "ops.flops"), lg(512));
  EXPECT_FLOAT_EQ(feature(n, "ops.float_add"), 0);
  EXPECT_FLOAT_EQ(feature(n, "loop.depth"), 1);
  EXPECT_FLOAT_EQ(feature(n, "loop.executions"), lg(64));
  EXPECT_FLOAT_EQ(feature(n, "loop.extent_in0"), lg(64));
  EXPECT_FLOAT_EQ(feature(n, "loop.extent_in1"), 0);
  EXPECT_FLOAT_EQ(feature(n, "loop.vectorized"), 1);
  EXPECT_FLOAT_EQ(feature(n, "loop.vector_lanes"), lg(8));
  EXPECT_FLOAT_EQ(feature(n, "loop.unrolled"), 0);
  EXPECT_FLOAT_EQ(feature(n, "loop.parallel_loops"), 0);
  EXPECT_FLOAT_EQ(feature(n, "loop.stores_output"), 1);
  EXPECT_FLOAT_EQ(feature(n, "loop.is_init"), 0);
  // b0 is `in` (as many distinct bytes as `out`; loads come first): 512 elements read once each,
  // 2048 contiguous bytes = 32 distinct lines; each 8-lane access touches one line: 64 in all.
  EXPECT_FLOAT_EQ(feature(n, "buffer.b0_read"), 1);
  EXPECT_FLOAT_EQ(feature(n, "buffer.b0_write"), 0);
  EXPECT_FLOAT_EQ(feature(n, "buffer.b0_bytes"), lg(2048));
  EXPECT_FLOAT_EQ(feature(n, "buffer.b0_unique_bytes"), lg(2048));
  EXPECT_FLOAT_EQ(feature(n, "buffer.b0_unique_lines"), lg(32));
  EXPECT_FLOAT_EQ(feature(n, "buffer.b0_lines"), lg(64));
  EXPECT_FLOAT_EQ(feature(n, "buffer.b0_reuse_none"), 1);
  EXPECT_FLOAT_EQ(feature(n, "buffer.b0_stride"), lg(1));
  EXPECT_FLOAT_EQ(feature(n, "buffer.b1_write"), 1);
  EXPECT_FLOAT_EQ(feature(n, "buffer.b2_bytes"), 0);  // only two buffers
  EXPECT_FLOAT_EQ(feature(n, "intensity.flops_per_byte"), lg(512.0 / 4096.0));
  EXPECT_FLOAT_EQ(feature(n, "intensity.flops_per_line"), lg(512.0 / 64.0));
}

// parallel p in 0..4: for i in 0..16: out[16p + i] = in[16p + i] + 1
TEST(LeafFeatures, ParallelLoop) {
  LoopNest n;
  n.loops.push_back(Loop{"p", 4, 4, LoopKind::kParallel, -1, 0, 0});
  n.loops.push_back(Loop{"i", 16, 16, LoopKind::kSerial, 0, 1, 1});
  Leaf leaf;
  leaf.buffer = "out";
  leaf.loops = {0, 1};
  leaf.parent = 1;
  leaf.depth = 2;
  leaf.preorder = 2;
  leaf.ops.float_add = 1;
  leaf.accesses = {access("in", false, {16, 1}), access("out", true, {16, 1})};
  n.leaves.push_back(leaf);
  n.buffers = {{"in", 256, 4, true, false}, {"out", 256, 4, false, true}};
  EXPECT_FLOAT_EQ(feature(n, "loop.parallel_loops"), 1);
  EXPECT_FLOAT_EQ(feature(n, "loop.parallel_product"), lg(4));
  EXPECT_FLOAT_EQ(feature(n, "loop.parallel_position"), 0);  // the outermost loop
  EXPECT_FLOAT_EQ(feature(n, "loop.parallel_innermost"), lg(4));
  EXPECT_FLOAT_EQ(feature(n, "loop.executions"), lg(64));
  EXPECT_FLOAT_EQ(feature(n, "loop.extent_in0"), lg(16));
  EXPECT_FLOAT_EQ(feature(n, "loop.extent_in1"), lg(4));
  EXPECT_FLOAT_EQ(feature(n, "loop.vectorized"), 0);
  EXPECT_FLOAT_EQ(feature(n, "ops.float_add"), lg(64));
  // The two loops make one contiguous run of 64 floats: 4 lines; one line per scalar access.
  EXPECT_FLOAT_EQ(feature(n, "buffer.b0_unique_lines"), lg(4));
  EXPECT_FLOAT_EQ(feature(n, "buffer.b0_lines"), lg(64));
  EXPECT_FLOAT_EQ(feature(n, "intensity.outer_product"), lg(4));

  // The same nest with the parallel loop inside: position 1 (innermost of two).
  n.loops[0].kind = LoopKind::kSerial;
  n.loops[1].kind = LoopKind::kParallel;
  EXPECT_FLOAT_EQ(feature(n, "loop.parallel_position"), 1);
  EXPECT_FLOAT_EQ(feature(n, "loop.parallel_innermost"), lg(16));
}

// for i in 0..8: for k in 0..32: C[i] = C[i] + A[32i + k] * B[k]
TEST(LeafFeatures, ReductionWithReuse) {
  LoopNest n;
  n.loops.push_back(Loop{"i", 8, 8, LoopKind::kSerial, -1, 0, 0});
  n.loops.push_back(Loop{"k", 32, 32, LoopKind::kSerial, 0, 1, 1});
  Leaf leaf;
  leaf.buffer = "C";
  leaf.loops = {0, 1};
  leaf.parent = 1;
  leaf.depth = 2;
  leaf.preorder = 2;
  leaf.ops.float_fma = 1;
  leaf.accesses = {access("C", false, {1, 0}), access("A", false, {32, 1}), access("B", false, {0, 1}),
                   access("C", true, {1, 0})};
  n.leaves.push_back(leaf);
  n.buffers = {{"A", 1024, 4, true, false}, {"B", 128, 4, true, false}, {"C", 32, 4, false, true}};
  EXPECT_FLOAT_EQ(feature(n, "ops.float_fma"), lg(256));
  EXPECT_FLOAT_EQ(feature(n, "ops.flops"), lg(512));
  // Buffers by distinct bytes: A (1024), B (128), C (32).
  EXPECT_FLOAT_EQ(feature(n, "buffer.b0_unique_bytes"), lg(1024));
  EXPECT_FLOAT_EQ(feature(n, "buffer.b0_reuse_none"), 1);
  // B is reused by every i: 8 times, 32 iterations apart, with 264 bytes in between (C 4 + 4, A 128,
  // B 128 over one pass of k).
  EXPECT_FLOAT_EQ(feature(n, "buffer.b1_unique_bytes"), lg(128));
  EXPECT_FLOAT_EQ(feature(n, "buffer.b1_reuse_loop"), 1);
  EXPECT_FLOAT_EQ(feature(n, "buffer.b1_reuse_count"), lg(8));
  EXPECT_FLOAT_EQ(feature(n, "buffer.b1_reuse_iters"), lg(32));
  EXPECT_FLOAT_EQ(feature(n, "buffer.b1_reuse_bytes"), lg(264));
  // C, read and written, is reused by every k: 32 times, one iteration apart, 16 bytes between.
  EXPECT_FLOAT_EQ(feature(n, "buffer.b2_read_write"), 1);
  EXPECT_FLOAT_EQ(feature(n, "buffer.b2_reuse_loop"), 1);
  EXPECT_FLOAT_EQ(feature(n, "buffer.b2_reuse_count"), lg(32));
  EXPECT_FLOAT_EQ(feature(n, "buffer.b2_reuse_iters"), lg(1));
  EXPECT_FLOAT_EQ(feature(n, "buffer.b2_reuse_bytes"), lg(16));
  EXPECT_FLOAT_EQ(feature(n, "buffer.b2_unique_bytes"), lg(32));
  // 512 flops over 1184 distinct bytes.
  EXPECT_FLOAT_EQ(feature(n, "intensity.flops_per_byte"), lg(512.0 / 1184.0));
}

TEST(LeafFeatures, EveryGroupFillsItsColumns) {
  LoopNest n = vectorised();
  EXPECT_EQ(leaf_features(make_leaf_context(n, n.leaves[0])).size(), leaf_feature_names().size());
  ProgramFeatures f = loop_nest_features(n);
  ASSERT_EQ(f.leaves.size(), 1u);
  EXPECT_EQ(f.pooled.size(), pooled_feature_names().size());
  EXPECT_EQ(f.positions[0].preorder, 1);
  EXPECT_EQ(f.positions[0].depth, 1);
  EXPECT_EQ(f.positions[0].parent_preorder, 0);
}

}  // namespace
}  // namespace tensorperf::features
