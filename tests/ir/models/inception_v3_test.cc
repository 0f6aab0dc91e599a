#include <gtest/gtest.h>

#include "ir/models/zoo.h"
#include "model_test_util.h"

namespace tensorperf::ir {
namespace {

using models::testing::count_nodes;
using models::testing::expect_macs;

TEST(InceptionV3Test, MacsMatchTorchvision) {
  expect_macs("inception_v3", {}, 5713216096, 5.713);
  expect_macs("inception_v3", {.image_size = 342}, 7283565952);
}

TEST(InceptionV3Test, BranchesAsTheOnnxExporterEmitsThem) {
  Result<Graph> g = build_model("inception_v3");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->type(g->inputs()[0]).shape, (Shape{1, 3, 299, 299}));
  // Mixed_5b..7c: 11 blocks, one concat each (Inception-E's nested cats are one 6-input concat).
  EXPECT_EQ(count_nodes(*g, OpKind::kConcat), 11);
  EXPECT_EQ(count_nodes(*g, OpKind::kConv2d), 94);
  EXPECT_EQ(count_nodes(*g, OpKind::kAvgPool2d), 9);
  EXPECT_EQ(count_nodes(*g, OpKind::kMaxPool2d), 4);
  for (const Node& n : g->nodes()) {
    if (n.op == OpKind::kBatchNorm) {
      EXPECT_DOUBLE_EQ(n.attrs.get_float("epsilon", 0), 0.001) << n.name;
    }
    if (n.op == OpKind::kAvgPool2d) {
      EXPECT_EQ(n.attrs.get_int("count_include_pad", 0), 1) << n.name;
    }
  }
}

TEST(InceptionV3Test, ImageBelow75IsInvalidArgument) {
  Result<Graph> g = build_model("inception_v3", {.image_size = 64});
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tensorperf::ir
