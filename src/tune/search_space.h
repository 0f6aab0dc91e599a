// The space a tuner searches: one provider's knobs for one workload, each point a vector of value
// indices (a mixed-radix number, the first knob most significant), with the provider's validity
// check. Tuners work on points; the tuning loop turns them into configs.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/status.h"
#include "ir/workload.h"
#include "kernels/provider.h"

namespace tensorperf::tune {

using Point = std::vector<int>;  // one value index per knob

struct PointHash {
  size_t operator()(const Point& p) const;
};
using PointSet = std::unordered_set<Point, PointHash>;

// Schedule features of a config of the space (Provider::schedule_features), the same length for
// every valid config.
using ScheduleFeatureFn = std::function<Result<std::vector<double>>(const kernels::Config&)>;

class SearchSpace {
 public:
  // `validate` checks a config of this space (nullptr: every point is valid); `fallback` gives the
  // value of a knob that a stored config lacks (a knob added after it was measured);
  // `schedule_features` (optional) adds derived numbers to a point's features.
  SearchSpace(kernels::ConfigSpace space, std::string provider,
              std::function<Status(const kernels::Config&)> validate, nlohmann::json fallback = nlohmann::json::object(),
              ScheduleFeatureFn schedule_features = {});
  // The space of `provider` for `w`: checked by provider.validate, its default config as fallback,
  // its schedule features.
  static SearchSpace of(const ir::Workload& w, const kernels::Provider& provider);

  const std::vector<kernels::Knob>& knobs() const { return space_.knobs; }
  const std::string& provider() const { return provider_; }
  size_t dims() const { return space_.knobs.size(); }
  int radix(size_t k) const { return static_cast<int>(space_.knobs[k].values.size()); }
  double size() const { return space_.size(); }

  kernels::Config config(const Point& p) const;
  // The point of stored knobs: every knob of the space present (or in the fallback) with one of its
  // listed values; other knobs are ignored. nullopt when the config is not a point of this space.
  std::optional<Point> point_of(const nlohmann::json& knobs) const;
  // Whether the provider accepts the point's config (cached: a tuner asks about the same points
  // often). Not thread-safe.
  bool valid(const Point& p) const;
  Point random_point(std::mt19937_64& rng) const;
  // A valid random point, or nullopt when `tries` draws were all invalid.
  std::optional<Point> random_valid_point(std::mt19937_64& rng, int tries = 1000) const;
  // Mixed-radix conversion, the first knob most significant. REQUIRES: i < size().
  Point at(uint64_t i) const;
  uint64_t index(const Point& p) const;

  // A point as numbers for learned models: per knob its value when every value of the knob is a
  // number, else the value's index; then the schedule features (NaN, "missing", for a point
  // whose config has none). Cached; not thread-safe.
  size_t feature_width() const;
  void features(const Point& p, float* out) const;

 private:
  kernels::ConfigSpace space_;
  std::string provider_;
  std::function<Status(const kernels::Config&)> validate_;
  nlohmann::json fallback_;
  ScheduleFeatureFn schedule_features_;
  std::vector<std::vector<float>> knob_values_;  // knob -> value index -> feature
  mutable std::unordered_map<Point, bool, PointHash> valid_cache_;
  mutable std::unordered_map<Point, std::vector<float>, PointHash> feature_cache_;
  mutable std::optional<size_t> schedule_width_;
};

}  // namespace tensorperf::tune
