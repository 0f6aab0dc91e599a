#include <gtest/gtest.h>

#include "ir/models/zoo.h"
#include "model_test_util.h"

namespace tensorperf::ir {
namespace {

using models::testing::count_nodes;
using models::testing::expect_macs;

TEST(ResnetTest, Resnet18MacsMatchTorchvision) {
  expect_macs("resnet18", {}, 1814073344, 1.814);
  expect_macs("resnet18", {.image_size = 160}, 925798400);
}

TEST(ResnetTest, Resnet50MacsMatchTorchvision) {
  expect_macs("resnet50", {}, 4089184256, 4.089);
  expect_macs("resnet50", {.image_size = 256}, 5340348416);
}

TEST(ResnetTest, BlocksAndShortcuts) {
  Result<Graph> r18 = build_model("resnet18");
  ASSERT_TRUE(r18.ok()) << r18.status().ToString();
  EXPECT_EQ(count_nodes(*r18, OpKind::kConv2d), 20);  // 1 stem + 16 in blocks + 3 downsample
  EXPECT_EQ(count_nodes(*r18, OpKind::kAdd), 8);
  EXPECT_EQ(count_nodes(*r18, OpKind::kBatchNorm), 20);
  EXPECT_EQ(r18->type(r18->outputs()[0]).shape, (Shape{1, 1000}));

  Result<Graph> r50 = build_model("resnet50");
  ASSERT_TRUE(r50.ok()) << r50.status().ToString();
  EXPECT_EQ(count_nodes(*r50, OpKind::kConv2d), 53);  // 1 stem + 48 in blocks + 4 downsample
  EXPECT_EQ(count_nodes(*r50, OpKind::kAdd), 16);
}

}  // namespace
}  // namespace tensorperf::ir
