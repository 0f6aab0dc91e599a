// ga: a genetic search as AutoTVM's GATuner does it. A generation of `population` points is
// proposed; once it is measured, the next one is bred from it and the elites (the best points of
// every generation so far): parents picked with probability proportional to their fitness
// (throughput; a failed point has none), a child takes each knob from either parent, then each knob
// mutates with a small probability. An invalid or already measured child is repaired by further
// mutations, then replaced by a random valid point.
#include <algorithm>
#include <cmath>
#include <random>

#include "tune/tuners.h"

namespace tensorperf::tune {
namespace {

constexpr int kPopulation = 32;
constexpr int kElites = 4;
constexpr double kMutation = 0.1;
constexpr int kRepairTries = 20;

class GaTuner final : public Tuner {
 public:
  explicit GaTuner(const TunerContext& c) : space_(*c.space), rng_(c.seed) {}

  std::vector<Point> next_batch(int n) override {
    std::vector<Point> out;
    while (static_cast<int>(out.size()) < n) {
      if (pending_.empty() && !breed()) break;
      out.push_back(std::move(pending_.back()));
      pending_.pop_back();
    }
    return out;
  }

  void update(std::span<const TrialResult> results) override {
    for (const TrialResult& r : results) {
      if (!seen_.insert(r.point).second && fitness_.count(r.point)) continue;
      double f = std::isfinite(r.cost) && r.cost > 0 ? 1.0 / r.cost : 0.0;
      fitness_[r.point] = f;
      generation_.push_back(r.point);
    }
  }

 private:
  // Fills pending_ with the next generation; false when nothing new could be made.
  bool breed() {
    // Parents: this generation's measured points and the elites of all before.
    std::vector<Point> parents = generation_;
    for (const Point& e : elites_)
      if (std::find(parents.begin(), parents.end(), e) == parents.end()) parents.push_back(e);
    std::sort(parents.begin(), parents.end(), [&](const Point& a, const Point& b) { return fitness_[a] > fitness_[b]; });
    elites_.assign(parents.begin(), parents.begin() + std::min<size_t>(kElites, parents.size()));
    generation_.clear();

    std::vector<double> weights;
    for (const Point& p : parents) weights.push_back(fitness_[p]);
    bool any_fit = std::any_of(weights.begin(), weights.end(), [](double w) { return w > 0; });
    std::vector<Point> children;
    PointSet planned;
    for (int tries = 0; static_cast<int>(children.size()) < kPopulation && tries < 20 * kPopulation; ++tries) {
      std::optional<Point> child;
      if (parents.size() >= 2 && any_fit) {
        std::discrete_distribution<size_t> pick(weights.begin(), weights.end());
        child = crossover(parents[pick(rng_)], parents[pick(rng_)]);
        mutate(*child, kMutation);
        for (int r = 0; r < kRepairTries && (!space_.valid(*child) || seen_.count(*child) || planned.count(*child)); ++r)
          mutate(*child, 2.0 / static_cast<double>(std::max<size_t>(space_.dims(), 1)));
      }
      if (!child || !space_.valid(*child) || seen_.count(*child) || planned.count(*child))
        child = space_.random_valid_point(rng_);
      if (!child || seen_.count(*child) || planned.count(*child)) continue;
      planned.insert(*child);
      children.push_back(std::move(*child));
    }
    for (const Point& c : children) seen_.insert(c);
    // pending_ is popped from the back: keep the first child last.
    pending_.assign(children.rbegin(), children.rend());
    return !pending_.empty();
  }

  Point crossover(const Point& a, const Point& b) {
    Point c(a.size());
    for (size_t k = 0; k < a.size(); ++k) c[k] = (rng_() & 1) ? a[k] : b[k];
    return c;
  }

  // Each knob takes another random value with probability p.
  void mutate(Point& p, double prob) {
    std::bernoulli_distribution flip(std::min(1.0, prob));
    for (size_t k = 0; k < p.size(); ++k)
      if (space_.radix(k) > 1 && flip(rng_)) {
        int v = std::uniform_int_distribution<int>(0, space_.radix(k) - 2)(rng_);
        p[k] = v >= p[k] ? v + 1 : v;
      }
  }

  const SearchSpace& space_;
  std::mt19937_64 rng_;
  PointSet seen_;
  std::unordered_map<Point, double, PointHash> fitness_;
  std::vector<Point> generation_, elites_, pending_;
};

}  // namespace

std::unique_ptr<Tuner> make_ga_tuner(const TunerContext& context) { return std::make_unique<GaTuner>(context); }

}  // namespace tensorperf::tune
