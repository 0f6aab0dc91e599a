#include "ir/models/watts_strogatz.h"

#include <random>
#include <set>
#include <stdexcept>

namespace tensorperf::ir::models {
namespace {

// Platform-independent draws from mt19937_64 (std::uniform_*_distribution are implementation-defined).
class Random {
 public:
  explicit Random(uint64_t seed) : engine_(seed) {}
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }  // [0, 1)
  int below(int n) {  // uniform in [0, n), by rejection so every value is equally likely
    const uint64_t bound = static_cast<uint64_t>(n);
    const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t x;
    do {
      x = engine_();
    } while (x >= limit);
    return static_cast<int>(x % bound);
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace

std::vector<std::pair<int, int>> watts_strogatz_edges(int n, int k, double p, uint64_t seed) {
  if (k < 2 || k % 2 != 0 || n <= k || p < 0 || p > 1) {
    throw std::logic_error("watts_strogatz_edges: needs n > k >= 2, k even and 0 <= p <= 1");
  }
  std::vector<std::set<int>> adjacent(n);
  auto link = [&](int a, int b) {
    adjacent[a].insert(b);
    adjacent[b].insert(a);
  };
  for (int j = 1; j <= k / 2; ++j) {
    for (int u = 0; u < n; ++u) link(u, (u + j) % n);
  }
  Random random(seed);
  for (int j = 1; j <= k / 2; ++j) {
    for (int u = 0; u < n; ++u) {
      if (random.uniform() >= p) continue;
      const int v = (u + j) % n;
      // A node already linked to every other one keeps its edge.
      if (static_cast<int>(adjacent[u].size()) >= n - 1) continue;
      int w = random.below(n);
      while (w == u || adjacent[u].count(w) != 0) w = random.below(n);
      adjacent[u].erase(v);
      adjacent[v].erase(u);
      link(u, w);
    }
  }
  std::vector<std::pair<int, int>> edges;
  for (int u = 0; u < n; ++u) {
    for (int v : adjacent[u]) {
      if (u < v) edges.emplace_back(u, v);
    }
  }
  return edges;
}

}  // namespace tensorperf::ir::models
