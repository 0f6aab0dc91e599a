// A device's graph calibration: how much slower (or faster) kernels run inside a whole model on the
// executor than a cost model predicts them, per class of operator. The cost model learns from the
// profiler's timings of one kernel run over and over, whose weights and inputs stay cached; in a
// graph a convolution's weights come from memory, an element-wise op reads what the op before it
// wrote, and a host's caches are shared with other guests. How much that costs differs by CPU and by
// kind of operator (docs/costmodel.md), and no record of the profiler's shows it.
//
// A calibration is fitted from `tensorperf predict --compare --json` outputs of some models on one
// device with one cost model (the per-operator predictions beside the run's per-operator times):
// per class, the median over those runs of (run's time / predicted time) summed over the run's
// operators of the class, each run weighted by its time in the class; and the median of what a
// whole run spends beyond its timed kernels and copies. A class is a kind of operator, whether it
// runs chained, and the decade of its predicted time per instance (in a graph a short kernel pays
// more for cold weights and waking threads, relative to its length, than a long one). A class seen
// in fewer than `min_models` runs falls back to a broader one (every length, then the kind
// unchained, a pool to element-wise ops, a depthwise convolution to convolutions, then every
// kernel). `predict
// --calibration` multiplies each operator's prediction by its class's factor. It is only of use for
// models it was not fitted on: bench/costmodel/predict_e2e.py fits one per held-out network from
// the other networks' runs.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "ir/workload.h"

namespace tensorperf::costmodel {

inline constexpr int kGraphCalibrationVersion = 1;

// The decade of a kernel's time: "<10us", "10-100us", "0.1-1ms", "1-10ms", ">10ms".
std::string time_bucket(double seconds);
// The calibration class of an operator: "conv", "depthwise", "dense", "pool", "elementwise", with
// ":chained" appended where the executor keeps at least half of its activations in its kernel's
// native layout (`chained_share` >= 0.5, runtime/layout_chains.h), then the time bucket of its
// uncalibrated prediction per instance: "conv:chained 0.1-1ms".
std::string calibration_class(const ir::Workload& w, double chained_share, double predicted_s);
// The class of a layout copy (runtime/layout_copies.h) of op `op`: "copy concat", "copy transpose"
// (channels-last concats copy from cache on every thread, a transpose or slice on one).
std::string copy_class(std::string_view op);
// The classes tried in turn for `cls`: itself, then broader ones, ending with "all" (a copy's end
// with "copy": copies are predicted from bandwidth, not by the cost model).
std::vector<std::string> calibration_fallbacks(std::string_view cls);

// One model's run against its prediction (one `predict --compare --json` output).
struct GraphComparison {
  std::string source;  // where it came from (a file name), for messages
  std::string model;   // "resnet18"
  int64_t batch = 0;
  std::string device;  // device key
  std::string cost_model_id;
  struct Part {
    double predicted_s = 0;  // summed over the class's instances
    double measured_s = 0;
    int64_t instances = 0;
  };
  std::map<std::string, Part> classes;  // class -> sums; copy_class() for the layout copies
  double measured_s = 0;                // the whole run (p50)
  double measured_parts_s = 0;          // its kernels' and copies' times summed
};

// Reads a `predict --compare --json` output. InvalidArgument (naming `source`) when it is not one:
// no run's times (predicted without --compare), or a malformed operator.
Result<GraphComparison> comparison_from_predict_json(const nlohmann::json& j, const std::string& source);

struct CalibrationFactor {
  double factor = 1;
  int models = 0;         // comparisons with instances of the class
  int64_t instances = 0;  // summed over them
};

class GraphCalibration {
 public:
  // InvalidArgument when `comparisons` is empty or mixes devices or cost models.
  static Result<GraphCalibration> fit(const std::vector<GraphComparison>& comparisons, int min_models = 2);

  // The factor for an operator of `cls`: its own where fitted, else the first fitted fallback, else 1.
  // Where each run has the class, the median of their ratios weighted by their time in it.
  double factor(std::string_view cls) const;
  // The class whose factor `factor(cls)` returns ("" when none).
  std::string factor_source(std::string_view cls) const;
  // The whole run over its kernels' and copies' sum.
  double overhead() const { return overhead_; }

  const std::string& device() const { return device_; }
  const std::string& cost_model_id() const { return cost_model_id_; }
  const std::map<std::string, CalibrationFactor>& factors() const { return factors_; }
  const std::vector<std::string>& models() const { return models_; }  // "resnet18 b1", ...

  nlohmann::json to_json() const;
  static Result<GraphCalibration> from_json(const nlohmann::json& j, const std::string& source);
  Status save(const std::string& path) const;
  static Result<GraphCalibration> load(const std::string& path);

 private:
  std::string device_, cost_model_id_;
  std::map<std::string, CalibrationFactor> factors_;  // fitted classes only, "all" among them
  double overhead_ = 1;
  std::vector<std::string> models_;
};

}  // namespace tensorperf::costmodel
