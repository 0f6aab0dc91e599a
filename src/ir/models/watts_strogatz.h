// Seeded Watts–Strogatz small-world graphs (Watts & Strogatz 1998), built by the same procedure as
// networkx.watts_strogatz_graph, which the RandWire paper uses: a ring where each node links to its
// k/2 nearest neighbours on each side, then every lattice edge (u, u+j), j = 1..k/2 in turn, u in
// order, is rewired with probability p to a uniformly chosen node, avoiding self-loops and duplicate
// edges. The random stream is std::mt19937_64(seed), so the same seed gives the same graph on every
// platform (not the graph networkx gives for that seed). Internal to src/ir/models/.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace tensorperf::ir::models {

// The undirected edges as (u, v) pairs with u < v, sorted. REQUIRES: n > k >= 2, k even, 0 <= p <= 1.
std::vector<std::pair<int, int>> watts_strogatz_edges(int n, int k, double p, uint64_t seed);

}  // namespace tensorperf::ir::models
