// xgb: model-guided search as AutoTVM's XGBTuner does it. An XGBoost rank model (rank:pairwise) over
// the features of (workload, device, point) is refit after every batch on all measurements (a
// failed point ranks worst), plus the related tasks' measurements it was given (transfer: each
// related task is a group of its own, so the model learns orders within tasks, not absolute times).
// The next batch: simulated annealing over the space finds the model's best unmeasured points,
// started from the best measured ones; the batch takes them in order of predicted rank plus a bonus
// for knob values the batch does not have yet (so it is not n near-copies), and a small share of
// random points. Before any model exists the batch is random.
#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <stdexcept>

#include "costmodel/gbdt.h"
#include "tune/annealing.h"
#include "tune/tuners.h"

namespace tensorperf::tune {
namespace {

constexpr double kRandomShare = 0.05;  // of each batch, at least one point
constexpr double kDiversity = 0.5;     // bonus weight for the share of knobs with a new value
constexpr size_t kMaxTransferRows = 6000;

class XgbTuner final : public Tuner {
 public:
  explicit XgbTuner(const TunerContext& c)
      : space_(*c.space), task_(c.task_features), transfer_(c.transfer), rng_(c.seed), seed_(c.seed) {
    width_ = task_.size() + space_.feature_width();
    size_t rows = 0;
    for (const TransferGroup& g : transfer_) rows += g.costs.size();
    if (rows > kMaxTransferRows) thin_transfer(rows);
    if (rows > 0) refit();
  }

  std::vector<Point> next_batch(int n) override {
    std::vector<Point> out;
    PointSet picked;
    const int random_picks = model_ ? std::max(1, static_cast<int>(std::ceil(kRandomShare * n))) : n;
    if (model_ && n > random_picks) {
      for (Point& p : diverse_pick(candidates(n), n - random_picks)) {
        picked.insert(p);
        out.push_back(std::move(p));
      }
    }
    for (int draws = 0; static_cast<int>(out.size()) < n && draws < 200 * n + 2000; ++draws) {
      Point p = space_.random_point(rng_);
      if (seen_.count(p) || picked.count(p) || !space_.valid(p)) continue;
      picked.insert(p);
      out.push_back(std::move(p));
    }
    for (const Point& p : out) seen_.insert(p);
    return out;
  }

  void update(std::span<const TrialResult> results) override {
    bool fresh = false;
    for (const TrialResult& r : results) {
      if (measured_.count(r.point)) continue;
      measured_.insert(r.point);
      seen_.insert(r.point);
      points_.push_back(r.point);
      costs_.push_back(r.cost);
      fresh = true;
    }
    if (fresh) refit();
  }

 private:
  void encode(const Point& p, float* row) const {
    std::copy(task_.begin(), task_.end(), row);
    space_.features(p, row + task_.size());
  }

  // Relevance labels of one group: best / cost in (0, 1], 0 for a failed point.
  static void labels_of(const std::vector<double>& costs, std::vector<float>& labels) {
    double best = std::numeric_limits<double>::infinity();
    for (double c : costs) best = std::min(best, c);
    for (double c : costs) labels.push_back(std::isfinite(c) && std::isfinite(best) ? static_cast<float>(best / c) : 0.0f);
  }

  void refit() {
    costmodel::Matrix x;
    x.cols = width_;
    std::vector<float> labels;
    std::vector<unsigned> groups;
    for (const TransferGroup& g : transfer_) {
      if (g.costs.size() < 2 || g.rows.size() != g.costs.size() * width_) continue;
      x.values.insert(x.values.end(), g.rows.begin(), g.rows.end());
      labels_of(g.costs, labels);
      groups.push_back(static_cast<unsigned>(g.costs.size()));
    }
    if (points_.size() >= 2) {
      size_t at = x.values.size();
      x.values.resize(at + points_.size() * width_);
      for (size_t i = 0; i < points_.size(); ++i) encode(points_[i], x.values.data() + at + i * width_);
      labels_of(costs_, labels);
      groups.push_back(static_cast<unsigned>(points_.size()));
    }
    // Nothing to order yet: every label equal (all failed, or a single point).
    if (groups.empty() || std::all_of(labels.begin(), labels.end(), [&](float l) { return l == labels[0]; })) return;
    costmodel::GbdtOptions o;
    o.seed = seed_;
    auto model = costmodel::Gbdt::train(x, labels, groups, {}, o);
    // The inputs are built here and always consistent: a failure is a broken invariant, not a result.
    if (!model.ok()) throw std::runtime_error("xgb tuner: training failed: " + model.status().message());
    model_ = std::move(model).value();
  }

  std::vector<double> score(const std::vector<Point>& points) const {
    costmodel::Matrix x;
    x.cols = width_;
    x.values.resize(points.size() * width_);
    for (size_t i = 0; i < points.size(); ++i) encode(points[i], x.row(i));
    auto s = model_->predict(x);
    if (!s.ok()) throw std::runtime_error("xgb tuner: prediction failed: " + s.status().message());
    return std::vector<double>(s->begin(), s->end());
  }

  // The model's best unmeasured points, best first.
  std::vector<std::pair<Point, double>> candidates(int n) {
    std::vector<size_t> order(points_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return costs_[a] < costs_[b]; });
    std::vector<Point> starts;
    for (size_t i = 0; i < order.size() && starts.size() < 32; ++i)
      if (std::isfinite(costs_[order[i]])) starts.push_back(points_[order[i]]);
    AnnealingOptions o;
    o.keep = std::max(64, 4 * n);
    return anneal(space_, [&](const std::vector<Point>& ps) { return score(ps); }, std::move(starts), seen_, o, rng_);
  }

  // Greedy: each pick maximises its rank score in [0, 1] plus kDiversity x the share of knobs whose
  // value no earlier pick of the batch has.
  std::vector<Point> diverse_pick(const std::vector<std::pair<Point, double>>& ranked, int n) const {
    std::vector<Point> out;
    std::vector<std::vector<bool>> covered(space_.dims());
    for (size_t k = 0; k < space_.dims(); ++k) covered[k].assign(space_.radix(k), false);
    std::vector<bool> taken(ranked.size(), false);
    const double denom = std::max<double>(1.0, static_cast<double>(ranked.size()));
    for (int i = 0; i < n; ++i) {
      double best = -1;
      size_t at = ranked.size();
      for (size_t c = 0; c < ranked.size(); ++c) {
        if (taken[c]) continue;
        int fresh = 0;
        for (size_t k = 0; k < space_.dims(); ++k) fresh += covered[k][ranked[c].first[k]] ? 0 : 1;
        double gain = 1.0 - static_cast<double>(c) / denom +
                      kDiversity * fresh / std::max<double>(1.0, static_cast<double>(space_.dims()));
        if (gain > best) {
          best = gain;
          at = c;
        }
      }
      if (at == ranked.size()) break;
      taken[at] = true;
      for (size_t k = 0; k < space_.dims(); ++k) covered[k][ranked[at].first[k]] = true;
      out.push_back(ranked[at].first);
    }
    return out;
  }

  // Keeps at most kMaxTransferRows rows, the same share of each group, its best rows first.
  void thin_transfer(size_t rows) {
    const double share = static_cast<double>(kMaxTransferRows) / static_cast<double>(rows);
    for (TransferGroup& g : transfer_) {
      size_t keep = std::max<size_t>(2, static_cast<size_t>(share * static_cast<double>(g.costs.size())));
      if (keep >= g.costs.size()) continue;
      std::vector<size_t> order(g.costs.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::shuffle(order.begin(), order.end(), rng_);
      // Half the kept rows are the group's best, half a random sample of the rest.
      std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep / 2), order.end(),
                        [&](size_t a, size_t b) { return g.costs[a] < g.costs[b]; });
      TransferGroup t;
      for (size_t i = 0; i < keep; ++i) {
        t.costs.push_back(g.costs[order[i]]);
        t.rows.insert(t.rows.end(), g.rows.begin() + static_cast<std::ptrdiff_t>(order[i] * width_),
                      g.rows.begin() + static_cast<std::ptrdiff_t>((order[i] + 1) * width_));
      }
      g = std::move(t);
    }
  }

  const SearchSpace& space_;
  std::vector<float> task_;
  std::vector<TransferGroup> transfer_;
  std::mt19937_64 rng_;
  uint64_t seed_;
  size_t width_ = 0;
  PointSet seen_, measured_;
  std::vector<Point> points_;
  std::vector<double> costs_;
  std::optional<costmodel::Gbdt> model_;
};

}  // namespace

std::unique_ptr<Tuner> make_xgb_tuner(const TunerContext& context) { return std::make_unique<XgbTuner>(context); }

}  // namespace tensorperf::tune
