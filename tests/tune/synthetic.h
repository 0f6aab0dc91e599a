// A synthetic schedule space with a known best point, for testing tuners without compiling anything:
// 5 knobs of 6 values (7,776 points), a fifth of them invalid, and a smooth cost with an interaction
// between the first two knobs whose minimum (1.0) is at kBest.
#pragma once

#include <cmath>
#include <limits>

#include "tune/search_space.h"
#include "tune/tuner.h"

namespace tensorperf::tune::testing {

inline const Point kBest = {3, 5, 1, 4, 2};

inline bool synthetic_valid(const Point& p) { return (p[2] + 2 * p[3]) % 5 != 0; }

inline double synthetic_cost(const Point& p) {
  const double w[] = {1.0, 0.8, 0.6, 0.4, 0.2};
  double d[5], c = 1.0;
  for (int k = 0; k < 5; ++k) {
    d[k] = p[k] - kBest[k];
    c += w[k] * d[k] * d[k];
  }
  return c + 0.3 * d[0] * d[1];
}

inline SearchSpace synthetic_space() {
  kernels::ConfigSpace s;
  for (int k = 0; k < 5; ++k) {
    kernels::Knob knob{"k" + std::to_string(k), {}};
    for (int v = 0; v < 6; ++v) knob.values.push_back(v * 2);  // numbers, not indices
    s.knobs.push_back(knob);
  }
  return SearchSpace(s, "synthetic", [](const kernels::Config& c) {
    Point p;
    for (int k = 0; k < 5; ++k) p.push_back(c.knobs["k" + std::to_string(k)].get<int>() / 2);
    return synthetic_valid(p) ? Status::Ok() : Status::InvalidArgument("k2 + 2 k3 is a multiple of 5");
  });
}

// Runs `tuner` in batches until it proposes kBest or `budget` trials; returns the trials used
// (budget + 1 when it never found it). Fails the calling test on an invalid or repeated proposal.
int trials_to_best(Tuner& tuner, int batch, int budget, bool* clean = nullptr);

}  // namespace tensorperf::tune::testing
