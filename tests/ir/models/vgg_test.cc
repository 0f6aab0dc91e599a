#include <gtest/gtest.h>

#include "ir/models/zoo.h"
#include "model_test_util.h"

namespace tensorperf::ir {
namespace {

using models::testing::count_nodes;
using models::testing::expect_macs;

TEST(VggTest, Vgg16MacsMatchTorchvision) {
  expect_macs("vgg16", {}, 15470264320, 15.470);
  // At 448 the adaptive pool averages 2x2 windows down to 7x7, so the classifier is unchanged.
  expect_macs("vgg16", {.image_size = 448}, 61510156288);
}

TEST(VggTest, LayersOfConfigurationD) {
  Result<Graph> g = build_model("vgg16");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(count_nodes(*g, OpKind::kConv2d), 13);
  EXPECT_EQ(count_nodes(*g, OpKind::kDense), 3);
  EXPECT_EQ(count_nodes(*g, OpKind::kMaxPool2d), 5);
  EXPECT_EQ(count_nodes(*g, OpKind::kAvgPool2d), 0);  // AdaptiveAvgPool2d(7) on 7x7 is the identity
  EXPECT_EQ(count_nodes(*g, OpKind::kBatchNorm), 0);
}

TEST(VggTest, ImageSizeWithoutA7x7MultipleIsInvalidArgument) {
  Result<Graph> g = build_model("vgg16", {.image_size = 256});
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(g.status().message().find("256"), std::string::npos);
}

}  // namespace
}  // namespace tensorperf::ir
