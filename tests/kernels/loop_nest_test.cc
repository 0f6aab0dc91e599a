// kernels::lower: the loop nests of Halide configs, checked against what their schedules say.
#include "kernels/loop_nest.h"

#include <gtest/gtest.h>

#include "kernels/halide/halide_provider.h"
#include "test_workloads.h"

namespace tensorperf::kernels {
namespace {

using testing::make_workload;

constexpr const char* kAvx2 = "x86-64-linux-avx-avx2-f16c-fma-sse41";

// Element iterations of the leaves that store to `buffer`: executions x lanes (unrolled copies are in
// the per-iteration counts).
double stored_elements(const LoopNest& n, const std::string& buffer) {
  double total = 0;
  for (const Leaf& l : n.leaves)
    if (l.buffer == buffer)
      for (const Access& a : l.accesses)
        if (a.is_store) total += l.executions(n.loops) * a.lanes * static_cast<double>(a.count);
  return total;
}

double fma_lanes(const LoopNest& n) {
  double total = 0;
  for (const Leaf& l : n.leaves) total += l.executions(n.loops) * l.lanes * static_cast<double>(l.ops.float_fma);
  return total;
}

const BufferInfo& output_of(const LoopNest& n) {
  for (const BufferInfo& b : n.buffers)
    if (b.is_output) return b;
  throw std::logic_error("no output buffer");
}

TEST(LoopNest, ElementwiseVectorisedUnrolledParallel) {
  ir::Workload relu = make_workload(ir::OpKind::kRelu, {{1, 16, 8, 32}});
  auto nest = lower(relu, Config{"halide", {{"vector_width", 8}, {"unroll", 2}, {"parallel", "outer"}}}, kAvx2);
  ASSERT_TRUE(nest.ok()) << nest.status().ToString();
  SCOPED_TRACE(nest->to_string());
  const BufferInfo& out = output_of(*nest);
  EXPECT_EQ(out.bytes, 16 * 8 * 32 * 4);
  // Every output element stored once, by 8-lane stores, two copies per iteration, under one
  // parallel loop over the fused outer dims (16 x 8).
  EXPECT_DOUBLE_EQ(stored_elements(*nest, out.name), 16 * 8 * 32);
  ASSERT_FALSE(nest->leaves.empty());
  for (const Leaf& l : nest->leaves) {
    EXPECT_EQ(l.lanes, 8);
    EXPECT_EQ(l.unrolled, 2);
    EXPECT_EQ(l.ops.float_cmp, 2) << "max(x, 0) in each copy";
    ASSERT_EQ(l.accesses.size(), 2u);
    EXPECT_EQ(l.accesses[0].lane_stride, 1);
    EXPECT_TRUE(l.accesses[1].is_store);
  }
  int parallel = 0;
  for (const Loop& l : nest->loops)
    if (l.kind == LoopKind::kParallel) {
      ++parallel;
      EXPECT_EQ(l.extent, 16 * 8);
      EXPECT_EQ(l.depth, 0);
    }
  EXPECT_EQ(parallel, 1);

  auto serial = lower(relu, Config{"halide", {{"vector_width", 1}, {"unroll", 1}, {"parallel", "none"}}}, kAvx2);
  ASSERT_TRUE(serial.ok());
  for (const Loop& l : serial->loops) EXPECT_EQ(l.kind, LoopKind::kSerial);
  for (const Leaf& l : serial->leaves) EXPECT_EQ(l.lanes, 1);
  EXPECT_DOUBLE_EQ(stored_elements(*serial, output_of(*serial).name), 16 * 8 * 32);
}

// "chunks": slabs of the innermost dims (here 64 x 32) in tasks of 16,384 elements, the tasks the
// parallel loop; a tensor of one task has none.
TEST(LoopNest, ElementwiseParallelInChunks) {
  ir::Workload relu = make_workload(ir::OpKind::kRelu, {{2, 16, 64, 32}});  // 32 slabs, 8 per task
  auto nest = lower(relu, Config{"halide", {{"vector_width", 8}, {"unroll", 1}, {"parallel", "chunks"}}}, kAvx2);
  ASSERT_TRUE(nest.ok()) << nest.status().ToString();
  SCOPED_TRACE(nest->to_string());
  EXPECT_DOUBLE_EQ(stored_elements(*nest, output_of(*nest).name), 2 * 16 * 64 * 32);
  int parallel = 0;
  for (const Loop& l : nest->loops)
    if (l.kind == LoopKind::kParallel) {
      ++parallel;
      EXPECT_EQ(l.extent, 4);
      EXPECT_EQ(l.depth, 0);
    }
  EXPECT_EQ(parallel, 1);

  ir::Workload small = make_workload(ir::OpKind::kRelu, {{1, 176, 7, 7}});  // 8,624 elements
  auto one = lower(small, Config{"halide", {{"vector_width", 4}, {"unroll", 1}, {"parallel", "chunks"}}}, kAvx2);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  ASSERT_FALSE(one->loops.empty());
  for (const Loop& l : one->loops) EXPECT_NE(l.kind, LoopKind::kParallel);
}

// A tiled, blocked, unrolled convolution whose tiles divide the output: the fused multiply-adds over
// all leaves are exactly the convolution's. (With padding, loop partitions skip the padded rows.)
TEST(LoopNest, ConvolutionWorkMatchesItsShape) {
  ir::Workload conv = make_workload(ir::OpKind::kConv2d, {{1, 64, 30, 30}, {64, 64, 3, 3}, {64}}, {}, {"relu"});
  Config c{"halide",
           {{"layout", "nchwc"}, {"oc_block", 16}, {"vector_width", 8}, {"tile_x", 7}, {"tile_y", 2},
            {"tail", "guard"}, {"compute_at", "tile"}, {"rc_block", 16}, {"reduce_order", "c_k"},
            {"pad", "inline"}, {"unroll", 1}, {"parallel", "rows"}, {"strip", 1}}};
  auto nest = lower(conv, c, kAvx2);
  ASSERT_TRUE(nest.ok()) << nest.status().ToString();
  SCOPED_TRACE(nest->to_string());
  EXPECT_DOUBLE_EQ(fma_lanes(*nest), 64.0 * 28 * 28 * 64 * 9);
  EXPECT_DOUBLE_EQ(stored_elements(*nest, output_of(*nest).name), 64.0 * 28 * 28);
  // The register tile (7 x 2 pixels x 2 vectors of 8 channels) is unrolled: 28 accumulator updates per
  // iteration of the reduction, and the accumulator is allocated per tile.
  bool unrolled_update = false;
  for (const Leaf& l : nest->leaves)
    if (l.ops.float_fma > 0) {
      EXPECT_EQ(l.lanes, 8);
      unrolled_update = unrolled_update || l.unrolled == 28;
    }
  EXPECT_TRUE(unrolled_update);
  EXPECT_FALSE(nest->allocations.empty());
  bool parallel = false;
  for (const Loop& l : nest->loops) parallel = parallel || l.kind == LoopKind::kParallel;
  EXPECT_TRUE(parallel);
  // Padded by one: the kernel skips the taps that fall in the padding at the top and bottom rows
  // (loop partitions) and multiplies zeros at the left and right (a select); 1.2% fewer.
  ir::Workload padded = make_workload(ir::OpKind::kConv2d, {{1, 64, 28, 28}, {64, 64, 3, 3}, {64}},
                                      ir::Attrs().set("pads", std::vector<int64_t>{1, 1, 1, 1}), {"relu"});
  auto p = lower(padded, c, kAvx2);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const double macs = 64.0 * 28 * 28 * 64 * 9;
  EXPECT_DOUBLE_EQ(fma_lanes(*p), macs - 2 * 2 * 4 * (14 * 4 * 3 * 16 * 8));
  // The JSON form carries the same tree.
  nlohmann::json j = loop_nest_to_json(*nest);
  EXPECT_EQ(j["loops"].size(), nest->loops.size());
  EXPECT_EQ(j["leaves"].size(), nest->leaves.size());
}

TEST(LoopNest, OnlyValidHalideConfigsLower) {
  ir::Workload relu = make_workload(ir::OpKind::kRelu, {{1, 16, 8, 32}});
  EXPECT_EQ(lower(relu, Config{"onednn", {}}).status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(lower(relu, Config{"halide", {{"vector_width", 8}}}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(lower(relu, Config{"halide", {{"vector_width", 8}, {"unroll", 1}, {"parallel", "sideways"}}})
                .status()
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_FALSE(lower(relu, halide::halide_provider().default_config(relu), "not-a-target").ok());
}

}  // namespace
}  // namespace tensorperf::kernels
