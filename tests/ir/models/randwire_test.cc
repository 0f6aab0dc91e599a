#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/models/watts_strogatz.h"
#include "ir/models/zoo.h"
#include "ir/task_extraction.h"
#include "model_test_util.h"

namespace tensorperf::ir {
namespace {

using models::testing::anchor_macs;
using models::testing::count_nodes;

// Every node as "op(name; input names)": equal strings mean the same wiring.
std::vector<std::string> wiring(const Graph& g) {
  std::vector<std::string> out;
  for (const Node& n : g.nodes()) {
    std::string s = std::string(op_name(n.op)) + "(" + n.name + ";";
    for (ValueId v : n.inputs) s += g.value(v).name + ",";
    out.push_back(s + ")");
  }
  return out;
}

TEST(RandwireTest, SameSeedSameGraphOtherSeedOtherGraph) {
  Result<Graph> a = build_model("randwire", {.seed = 7});
  Result<Graph> b = build_model("randwire", {.seed = 7});
  Result<Graph> c = build_model("randwire", {.seed = 8});
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(wiring(*a), wiring(*b));
  EXPECT_NE(wiring(*a), wiring(*c));
}

TEST(RandwireTest, StagesFollowTheirWattsStrogatzGraphs) {
  const uint64_t seed = 5;
  Result<Graph> g = build_model("randwire", {.seed = seed});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  // A node with d > 0 predecessors sums them with d - 1 adds; a stage's k > 1 sinks take k - 1 adds
  // and one mul (the mean).
  int64_t adds = 0;
  int64_t means = 0;
  for (uint64_t stage = 0; stage < 3; ++stage) {
    std::vector<int> in_degree(32, 0);
    std::vector<bool> has_successor(32, false);
    for (auto [u, v] : models::watts_strogatz_edges(32, 4, 0.75, seed * 3 + stage)) {
      ++in_degree[v];
      has_successor[u] = true;
    }
    int sinks = 0;
    for (int v = 0; v < 32; ++v) {
      adds += std::max(in_degree[v] - 1, 0);
      sinks += has_successor[v] ? 0 : 1;
    }
    adds += sinks - 1;
    means += sinks > 1 ? 1 : 0;
  }
  EXPECT_EQ(count_nodes(*g, OpKind::kAdd), adds);
  EXPECT_EQ(count_nodes(*g, OpKind::kMul), means);
  // conv1, conv2, a depthwise + pointwise pair per node (3 x 32), the classifier's 1x1 conv.
  EXPECT_EQ(count_nodes(*g, OpKind::kConv2d), 2 + 3 * 32 * 2 + 1);
  EXPECT_EQ(g->type(g->outputs()[0]).shape, (Shape{1, 1000}));
}

TEST(RandwireTest, MultiplyAddsNearThePapersSmallRegime) {
  // The paper reports 583M multiply-adds on average over WS(4, 0.75) graphs at C=78.
  for (uint64_t seed : {0, 1, 2}) {
    Result<Graph> g = build_model("randwire", {.seed = seed});
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    EXPECT_NEAR(anchor_macs(*g) / 1e6, 583, 0.03 * 583) << "seed " << seed;
  }
}

TEST(RandwireTest, OtherImageSizeBuilds) {
  Result<Graph> g = build_model("randwire", {.batch = 2, .image_size = 256});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->type(g->outputs()[0]).shape, (Shape{2, 1000}));
}

}  // namespace
}  // namespace tensorperf::ir
