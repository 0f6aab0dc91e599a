#include "ir/models/builder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tensorperf::ir::models {
namespace {

TEST(ModelBuilderTest, ScopesNameNodesAndWeights) {
  ModelBuilder b("net");
  ValueId x = b.input("input", {1, 3, 8, 8});
  {
    Scope outer(b, "layer1");
    Scope inner(b, "0");
    x = b.conv_bn_relu("conv1", x, conv_spec(4, 3, 1, 1));
  }
  Result<Graph> g = b.finish({x});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  std::vector<std::string> names;
  for (const Node& n : g->nodes()) names.push_back(n.name);
  EXPECT_EQ(names, (std::vector<std::string>{"layer1.0.conv1.conv", "layer1.0.conv1.bn", "layer1.0.conv1.relu"}));
  const Node& conv = g->node(0);
  EXPECT_EQ(g->value(conv.inputs[1]).name, "layer1.0.conv1.conv.weight");
  EXPECT_EQ(g->type(conv.inputs[1]).shape, (Shape{4, 3, 3, 3}));
  EXPECT_TRUE(g->is_constant(conv.inputs[1]));
  EXPECT_EQ(g->value(conv.inputs[1]).data, nullptr);  // shape-only weights
}

TEST(ModelBuilderTest, SetsEveryListedAttributeOfConvAndPools) {
  ModelBuilder b("net");
  ValueId x = b.input("input", {1, 2, 8, 8});
  ConvSpec depthwise = conv_spec(2, 3, 2, 1);
  depthwise.groups = 2;
  ValueId c = b.conv("dw", x, depthwise);
  ValueId m = b.max_pool("max", c, 3, 2, {1, 1, 1, 1}, /*ceil_mode=*/true);
  ValueId a = b.avg_pool("avg", c, 3, 1, {1, 1, 1, 1}, /*count_include_pad=*/false);
  Result<Graph> g = b.finish({m, a});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->node(0).attrs.to_string(), "dilations=[1,1];groups=2;pads=[1,1,1,1];strides=[2,2]");
  EXPECT_EQ(g->node(1).attrs.to_string(), "ceil_mode=1;dilations=[1,1];kernel=[3,3];pads=[1,1,1,1];strides=[2,2]");
  EXPECT_EQ(g->node(2).attrs.to_string(), "ceil_mode=0;count_include_pad=0;kernel=[3,3];pads=[1,1,1,1];strides=[1,1]");
}

TEST(ModelBuilderTest, FirstErrorSticksAndFinishReportsIt) {
  ModelBuilder b("net");
  ValueId x = b.input("input", {1, 3, 8, 8});
  ValueId y = b.input("other", {1, 3, 4, 4});
  ValueId bad = b.add("mismatch", x, y);  // [1,3,8,8] + [1,3,4,4] do not broadcast
  EXPECT_EQ(bad, kNoValue);
  EXPECT_FALSE(b.ok());
  EXPECT_EQ(b.relu("after", bad), kNoValue);  // later calls add nothing
  Result<Graph> g = b.finish({bad});
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("net"), std::string::npos) << g.status().message();
  EXPECT_NE(g.status().message().find("mismatch"), std::string::npos) << g.status().message();
}

TEST(ModelBuilderTest, SumChainsAddsAndPassesASingleValueThrough) {
  ModelBuilder b("net");
  ValueId x = b.input("input", {1, 2});
  EXPECT_EQ(b.sum("one", {x}), x);
  ValueId s = b.sum("s", {x, x, x});
  Result<Graph> g = b.finish({s});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ(g->nodes().size(), 2u);
  EXPECT_EQ(g->node(0).name, "s");
  EXPECT_EQ(g->node(1).name, "s_1");
}

}  // namespace
}  // namespace tensorperf::ir::models
