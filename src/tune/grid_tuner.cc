// grid: walks the space in the order its knobs are declared (the first knob slowest), skipping
// invalid points and points already measured; it ends when the walk leaves the space.
#include "tune/tuners.h"

namespace tensorperf::tune {
namespace {

class GridTuner final : public Tuner {
 public:
  explicit GridTuner(const TunerContext& c) : space_(*c.space) {}

  std::vector<Point> next_batch(int n) override {
    std::vector<Point> out;
    const double size = space_.size();
    while (static_cast<int>(out.size()) < n && static_cast<double>(next_) < size) {
      Point p = space_.at(next_++);
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
  uint64_t next_ = 0;
  PointSet seen_;
};

}  // namespace

std::unique_ptr<Tuner> make_grid_tuner(const TunerContext& context) { return std::make_unique<GridTuner>(context); }

}  // namespace tensorperf::tune
