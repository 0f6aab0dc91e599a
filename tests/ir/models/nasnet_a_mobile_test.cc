#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/models/zoo.h"
#include "model_test_util.h"

namespace tensorperf::ir {
namespace {

using models::testing::anchor_macs;
using models::testing::count_nodes;

TEST(NasnetAMobileTest, MultiplyAddsMatchThePublished564M) {
  Result<Graph> g = build_model("nasnet_a_mobile");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_NEAR(anchor_macs(*g) / 1e6, 564, 0.01 * 564);
  // The port's conv and linear layers, counted by forward hooks, minus the row and column its
  // pad-and-slice convs compute and drop (568,234,858 with them).
  EXPECT_EQ(anchor_macs(*g), 563638816);
}

TEST(NasnetAMobileTest, CellsAndFeatureMaps) {
  Result<Graph> g = build_model("nasnet_a_mobile");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  // One concat per cell (2 stem, 12 normal, 2 reduction) and one per factorized reduction
  // (cell_stem_1 and the three first cells).
  EXPECT_EQ(count_nodes(*g, OpKind::kConcat), 16 + 4);
  // Feature maps: 1056 channels at 7x7 before the pool, as in the 4 @ 1056 network.
  for (const Node& n : g->nodes()) {
    if (n.op == OpKind::kGlobalAvgPool2d) {
      EXPECT_EQ(g->type(n.inputs[0]).shape, (Shape{1, 1056, 7, 7}));
    }
  }
  // Stride-2 separable convs outside cell_stem_0 pad like TensorFlow's SAME: one more at the end.
  int64_t same_padded = 0;
  for (const Node& n : g->nodes()) {
    if (n.op == OpKind::kConv2d && n.attrs.get_ints("pads", {}) == std::vector<int64_t>{1, 1, 2, 2}) {
      ++same_padded;
    }
  }
  EXPECT_EQ(same_padded, 3 * 2);  // comb_iter_0_left and comb_iter_2_right 5x5, in 3 reduction cells
  EXPECT_EQ(g->type(g->outputs()[0]).shape, (Shape{1, 1000}));
}

TEST(NasnetAMobileTest, OtherImageSizeBuilds) {
  Result<Graph> g = build_model("nasnet_a_mobile", {.batch = 4, .image_size = 256});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->type(g->outputs()[0]).shape, (Shape{4, 1000}));
}

TEST(NasnetAMobileTest, SizeTheReductionCellsCannotHalveIsInvalidArgument) {
  // 331 gives an 83x83 map after cell_stem_0: the port's two reduction paths would disagree.
  Result<Graph> g = build_model("nasnet_a_mobile", {.image_size = 331});
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(g.status().message().find("83x83"), std::string::npos) << g.status().message();
}

}  // namespace
}  // namespace tensorperf::ir
