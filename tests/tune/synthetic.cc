#include "synthetic.h"

#include <gtest/gtest.h>

namespace tensorperf::tune::testing {

int trials_to_best(Tuner& tuner, int batch, int budget, bool* clean) {
  PointSet seen;
  int trials = 0;
  bool ok = true;
  while (trials < budget) {
    std::vector<Point> points = tuner.next_batch(std::min(batch, budget - trials));
    if (points.empty()) break;
    std::vector<TrialResult> results;
    for (const Point& p : points) {
      ++trials;
      if (!synthetic_valid(p)) {
        ADD_FAILURE() << "an invalid point was proposed";
        ok = false;
      }
      if (!seen.insert(p).second) {
        ADD_FAILURE() << "a point was proposed twice";
        ok = false;
      }
      if (p == kBest) {
        if (clean) *clean = ok;
        return trials;
      }
      results.push_back({p, synthetic_cost(p)});
    }
    tuner.update(results);
  }
  if (clean) *clean = ok;
  return budget + 1;
}

}  // namespace tensorperf::tune::testing
