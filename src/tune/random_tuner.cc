// random: distinct valid points drawn uniformly from a seeded generator.
#include <random>

#include "tune/tuners.h"

namespace tensorperf::tune {
namespace {

class RandomTuner final : public Tuner {
 public:
  explicit RandomTuner(const TunerContext& c) : space_(*c.space), rng_(c.seed) {}

  std::vector<Point> next_batch(int n) override {
    std::vector<Point> out;
    // A generous number of draws: in a nearly exhausted small space most draws repeat.
    for (int draws = 0; static_cast<int>(out.size()) < n && draws < 200 * n + 2000; ++draws) {
      Point p = space_.random_point(rng_);
      if (seen_.count(p) || !space_.valid(p)) continue;
      seen_.insert(p);
      out.push_back(std::move(p));
    }
    return out;
  }

  void update(std::span<const TrialResult> results) override {
    for (const TrialResult& r : results) seen_.insert(r.point);
  }

 private:
  const SearchSpace& space_;
  std::mt19937_64 rng_;
  PointSet seen_;
};

}  // namespace

std::unique_ptr<Tuner> make_random_tuner(const TunerContext& context) { return std::make_unique<RandomTuner>(context); }

}  // namespace tensorperf::tune
