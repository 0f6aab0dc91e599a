#include "tune/annealing.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace tensorperf::tune {
namespace {

// A copy of p with one knob changed to another value, valid; p itself when no try gave one.
Point neighbour(const SearchSpace& space, const Point& p, std::mt19937_64& rng) {
  for (int tries = 0; tries < 8; ++tries) {
    Point q = p;
    size_t k = std::uniform_int_distribution<size_t>(0, space.dims() - 1)(rng);
    if (space.radix(k) < 2) continue;
    int v = std::uniform_int_distribution<int>(0, space.radix(k) - 2)(rng);
    q[k] = v >= p[k] ? v + 1 : v;
    if (space.valid(q)) return q;
  }
  return p;
}

}  // namespace

std::vector<std::pair<Point, double>> anneal(const SearchSpace& space, const ScoreFn& score, std::vector<Point> starts,
                                             const PointSet& exclude, const AnnealingOptions& options,
                                             std::mt19937_64& rng) {
  std::vector<Point> chains;
  for (Point& p : starts)
    if (static_cast<int>(chains.size()) < options.chains && space.valid(p)) chains.push_back(std::move(p));
  while (static_cast<int>(chains.size()) < options.chains) {
    auto p = space.random_valid_point(rng);
    if (!p) break;
    chains.push_back(std::move(*p));
  }
  if (chains.empty() || space.dims() == 0) return {};

  // The best `keep` points seen, by score; a point's entry is unique.
  std::multimap<double, Point> best;  // ascending: begin() is the worst kept
  PointSet kept;
  auto offer = [&](const Point& p, double s) {
    if (exclude.count(p) || kept.count(p)) return false;
    if (static_cast<int>(best.size()) >= options.keep) {
      if (s <= best.begin()->first) return false;
      kept.erase(best.begin()->second);
      best.erase(best.begin());
    }
    best.emplace(s, p);
    kept.insert(p);
    return true;
  };

  std::vector<double> scores = score(chains);
  for (size_t i = 0; i < chains.size(); ++i) offer(chains[i], scores[i]);
  double spread = 0;
  {
    auto [lo, hi] = std::minmax_element(scores.begin(), scores.end());
    spread = std::max(*hi - *lo, 1e-9);
  }
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int quiet = 0;
  for (int it = 0; it < options.iterations && quiet < options.patience; ++it) {
    const double t = options.temperature * spread * (1.0 - static_cast<double>(it) / options.iterations);
    std::vector<Point> next;
    next.reserve(chains.size());
    for (const Point& p : chains) next.push_back(neighbour(space, p, rng));
    std::vector<double> next_scores = score(next);
    bool changed = false;
    for (size_t i = 0; i < chains.size(); ++i) {
      changed = offer(next[i], next_scores[i]) || changed;
      double delta = next_scores[i] - scores[i];
      if (delta >= 0 || (t > 0 && unit(rng) < std::exp(delta / t))) {
        chains[i] = std::move(next[i]);
        scores[i] = next_scores[i];
      }
    }
    quiet = changed ? 0 : quiet + 1;
  }
  std::vector<std::pair<Point, double>> out;
  for (auto it = best.rbegin(); it != best.rend(); ++it) out.emplace_back(it->second, it->first);
  return out;
}

}  // namespace tensorperf::tune
