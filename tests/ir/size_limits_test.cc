// Every size that comes from input is checked before anything is derived from it: regression tests
// for shapes, batches, image sizes, pads and keys that overflowed 64-bit arithmetic or allocations.
#include <gtest/gtest.h>

#include "ir/graph.h"
#include "ir/models/zoo.h"
#include "ir/task_extraction.h"
#include "ir/workload.h"

namespace tensorperf::ir {
namespace {

TEST(SizeLimits, CheckSizeBoundsDimensionsAndElementCounts) {
  EXPECT_TRUE(check_size({{1, 3, 224, 224}}, "x").ok());
  EXPECT_TRUE(check_size({{kMaxTensorElements}}, "x").ok());
  EXPECT_TRUE(check_size({{0, kMaxDimension, kMaxDimension}}, "x").ok());  // empty: no elements
  for (const Shape& s : {Shape{1, 3, int64_t{1} << 31, int64_t{1} << 31}, Shape{int64_t{1} << 62, 4},
                         Shape{65536, 65536}, Shape{-1, 3}, Shape{int64_t{1} << 32}}) {
    Status st = check_size({s}, "input");
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << shape_to_string(s);
    EXPECT_NE(st.message().find("2147483647"), std::string::npos) << st.message();
  }
}

TEST(SizeLimits, AnOverflowingInputIsAnErrorNamingTheNode) {
  Graph g;
  ValueId x = g.add_input("x", {{1, 3, int64_t{1} << 31, int64_t{1} << 31}});
  ValueId w = g.add_constant("w", {{4, 3, 3, 3}});
  auto conv = g.add_op(OpKind::kConv2d, "conv1", {x, w}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  ASSERT_FALSE(conv.ok());
  EXPECT_NE(conv.status().message().find("conv1"), std::string::npos) << conv.status().message();
}

TEST(SizeLimits, HugePadsAndAttributesAreErrors) {
  Graph g;
  ValueId x = g.add_input("x", {{1, 3, 8, 8}});
  ValueId w = g.add_constant("w", {{4, 3, 3, 3}});
  const int64_t p = int64_t{1} << 40;
  auto conv = g.add_op(OpKind::kConv2d, "conv", {x, w}, {{"pads", std::vector<int64_t>{p, p, p, p}}});
  ASSERT_FALSE(conv.ok());
  EXPECT_NE(conv.status().message().find("pads"), std::string::npos) << conv.status().message();
  // Pads that fit one by one but make an output too large.
  const int64_t big = int64_t{1} << 30;
  auto wide = g.add_op(OpKind::kConv2d, "wide", {x, w}, {{"pads", std::vector<int64_t>{big, big, big, big}}});
  EXPECT_FALSE(wide.ok());
}

TEST(SizeLimits, HugeBatchesAndImagesAreErrorsNotCrashes) {
  ModelOptions o;
  o.batch = 1048576;
  o.image_size = 65536;
  auto g = build_model("resnet18", o);
  EXPECT_FALSE(g.ok());
  auto small = build_model("resnet18");
  ASSERT_TRUE(small.ok());
  Graph copy = *small;
  EXPECT_FALSE(copy.set_batch(int64_t{1} << 62).ok());
}

TEST(SizeLimits, WorkloadKeysWithHugeShapesDoNotParse) {
  EXPECT_FALSE(parse_workload_key("relu|float32[4294967296,4294967296]||").ok());
  EXPECT_FALSE(parse_workload_key("relu|float32[99999999999999999999]||").ok());
  auto ok = parse_workload_key("relu|float32[1,64,56,56]||");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_GT(ok->flops(), 0);
}

}  // namespace
}  // namespace tensorperf::ir
