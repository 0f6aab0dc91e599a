// Tuners: what proposes the next configs of one workload and learns from their measurements. A tuner
// is pure: it sees points of a SearchSpace and costs, never a compiler, a worker or the database, so
// it can be tested on synthetic spaces. The loop that measures, records and asks again lives once,
// in tuning_loop.h. The registry is one table (tuner_registry.cc).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "tune/search_space.h"

namespace tensorperf::tune {

// One measured point: its cost in seconds, +inf when the config failed (it then ranks worst).
struct TrialResult {
  Point point;
  double cost = std::numeric_limits<double>::infinity();
};

// Measurements of a related task (another workload of the same op kind, or this workload on another
// device) for model-based tuners to start from: rows already encoded like this task's (see
// features/workload_features.h), one cost per row (+inf: failed).
struct TransferGroup {
  std::vector<float> rows;  // row-major, TunerContext::feature_width() columns
  std::vector<double> costs;
};

struct TunerContext {
  const SearchSpace* space = nullptr;  // REQUIRES: outlives the tuner
  uint64_t seed = 0;
  // Features of this task (workload and device) that prefix every point's encoding, and related
  // tasks' measurements; used by model-based tuners only.
  std::vector<float> task_features;
  std::vector<TransferGroup> transfer;
};

class Tuner {
 public:
  virtual ~Tuner() = default;
  // Up to n valid points that were neither proposed nor reported before, the most promising first;
  // fewer, possibly none, when the tuner has nothing new to offer. REQUIRES: n >= 1.
  virtual std::vector<Point> next_batch(int n) = 0;
  // Measurements of points: its own proposals, or points measured before it started (records found
  // in the database). Either way they are never proposed again.
  virtual void update(std::span<const TrialResult> results) = 0;
};

struct TunerEntry {
  std::string_view name;
  std::string_view summary;
  std::function<std::unique_ptr<Tuner>(const TunerContext&)> make;
};

// Every tuner, in the order --help lists them.
const std::vector<TunerEntry>& tuners();
// NotFound naming the known tuners.
Result<std::unique_ptr<Tuner>> make_tuner(std::string_view name, const TunerContext& context);
// "xgb, ga, random, grid"
std::string tuner_names();
// OK when `name` is a tuner of the table, else NotFound naming the known ones.
Status check_tuner_name(std::string_view name);

}  // namespace tensorperf::tune
