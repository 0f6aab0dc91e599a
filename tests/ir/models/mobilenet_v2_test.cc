#include <gtest/gtest.h>

#include "ir/models/zoo.h"
#include "model_test_util.h"

namespace tensorperf::ir {
namespace {

using models::testing::count_nodes;
using models::testing::expect_macs;

TEST(MobilenetV2Test, MacsMatchTorchvision) {
  expect_macs("mobilenet_v2", {}, 300774272, 0.301);
  expect_macs("mobilenet_v2", {.image_size = 192}, 221316608);
}

TEST(MobilenetV2Test, InvertedResidualsWithRelu6) {
  Result<Graph> g = build_model("mobilenet_v2");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(count_nodes(*g, OpKind::kConv2d), 52);
  EXPECT_EQ(count_nodes(*g, OpKind::kAdd), 10);  // residual adds
  EXPECT_EQ(count_nodes(*g, OpKind::kRelu6), 35);
  EXPECT_EQ(count_nodes(*g, OpKind::kRelu), 0);
  int64_t depthwise = 0;
  for (const Node& n : g->nodes()) depthwise += n.op == OpKind::kConv2d && n.attrs.get_int("groups", 1) > 1;
  EXPECT_EQ(depthwise, 17);
}

}  // namespace
}  // namespace tensorperf::ir
