// Simulated annealing over a search space for a scoring model (what the model-guided tuner uses to
// find the model's best candidates without scoring the whole space). Parallel chains: each step
// changes one knob of every chain's point, scores all new points in one call, and accepts a worse
// point with probability exp(delta / temperature), the temperature falling linearly to 0.
#pragma once

#include <functional>
#include <random>
#include <utility>
#include <vector>

#include "tune/search_space.h"

namespace tensorperf::tune {

struct AnnealingOptions {
  int chains = 128;       // points moved in parallel
  int iterations = 300;   // steps at most
  int keep = 64;          // best points returned
  int patience = 60;      // stop after this many steps without a change in the best `keep`
  double temperature = 1; // at the start, in units of the scores' spread
};

// Higher is better; one score per point.
using ScoreFn = std::function<std::vector<double>(const std::vector<Point>&)>;

// Up to options.keep distinct valid points, not in `exclude`, with the highest scores found, best
// first, with their scores. Chains start at `starts` (then random valid points).
std::vector<std::pair<Point, double>> anneal(const SearchSpace& space, const ScoreFn& score, std::vector<Point> starts,
                                             const PointSet& exclude, const AnnealingOptions& options,
                                             std::mt19937_64& rng);

}  // namespace tensorperf::tune
