#include <gtest/gtest.h>

#include "ir/models/zoo.h"
#include "model_test_util.h"

namespace tensorperf::ir {
namespace {

using models::testing::count_nodes;
using models::testing::expect_macs;

TEST(SqueezenetTest, MacsMatchTorchvision) {
  expect_macs("squeezenet1_1", {}, 349151936, 0.349);
  expect_macs("squeezenet1_1", {.image_size = 256}, 462097088);
}

TEST(SqueezenetTest, EightFireModulesAndCeilModePools) {
  Result<Graph> g = build_model("squeezenet1_1");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(count_nodes(*g, OpKind::kConcat), 8);  // one per Fire module
  EXPECT_EQ(count_nodes(*g, OpKind::kConv2d), 26);
  EXPECT_EQ(count_nodes(*g, OpKind::kMaxPool2d), 3);
  for (const Node& n : g->nodes()) {
    if (n.op == OpKind::kMaxPool2d) {
      EXPECT_EQ(n.attrs.get_int("ceil_mode", 0), 1) << n.name;
    }
    if (n.op == OpKind::kConv2d) {
      EXPECT_EQ(n.inputs.size(), 3u) << n.name << " has no bias";
    }
  }
  // ceil_mode keeps the last partial window: 55 -> 27 -> 13 at 224.
  EXPECT_EQ(g->type(g->outputs()[0]).shape, (Shape{1, 1000}));
}

}  // namespace
}  // namespace tensorperf::ir
