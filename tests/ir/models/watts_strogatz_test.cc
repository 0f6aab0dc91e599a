#include "ir/models/watts_strogatz.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

namespace tensorperf::ir::models {
namespace {

using Edges = std::vector<std::pair<int, int>>;

TEST(WattsStrogatzTest, WithoutRewiringItIsTheRingLattice) {
  Edges edges = watts_strogatz_edges(8, 4, 0.0, 7);
  Edges ring;
  for (int u = 0; u < 8; ++u) {
    for (int j = 1; j <= 2; ++j) {
      int v = (u + j) % 8;
      ring.emplace_back(std::min(u, v), std::max(u, v));
    }
  }
  std::sort(ring.begin(), ring.end());
  EXPECT_EQ(edges, ring);
}

TEST(WattsStrogatzTest, RewiringKeepsEdgeCountAndDegreesAndAvoidsLoops) {
  for (uint64_t seed = 0; seed < 20; ++seed) {
    Edges edges = watts_strogatz_edges(32, 4, 0.75, seed);
    EXPECT_EQ(edges.size(), 32u * 4 / 2) << seed;
    const std::set<std::pair<int, int>> distinct(edges.begin(), edges.end());
    EXPECT_EQ(distinct.size(), edges.size()) << seed;
    std::vector<int> degree(32, 0);
    for (auto [u, v] : edges) {
      ASSERT_LT(u, v);
      ASSERT_LT(v, 32);
      ++degree[u];
      ++degree[v];
    }
    // A node keeps the k/2 edges it rewires itself.
    for (int d : degree) EXPECT_GE(d, 2) << seed;
  }
}

TEST(WattsStrogatzTest, SameSeedSameGraphOtherSeedOtherGraph) {
  EXPECT_EQ(watts_strogatz_edges(32, 4, 0.75, 42), watts_strogatz_edges(32, 4, 0.75, 42));
  EXPECT_NE(watts_strogatz_edges(32, 4, 0.75, 42), watts_strogatz_edges(32, 4, 0.75, 43));
}

TEST(WattsStrogatzTest, FullRewiringLeavesFewLatticeEdges) {
  // With p = 1 every lattice edge is redrawn; only chance keeps one of the 64 in place.
  Edges edges = watts_strogatz_edges(32, 4, 1.0, 3);
  int lattice = 0;
  for (auto [u, v] : edges) lattice += (v - u == 1 || v - u == 2 || v - u == 30 || v - u == 31);
  EXPECT_LT(lattice, 16);
}

}  // namespace
}  // namespace tensorperf::ir::models
