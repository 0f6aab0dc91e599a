// A device's graph calibration: how much slower (or faster) kernels run inside a whole model on the
// executor than a cost model predicts them, per class of operator. The cost model learns from the
// profiler's timings of one kernel run over and over, whose weights and inputs stay cached; in a
// graph a convolution's weights and the activations written long before come from memory (which
// `predict` counts unless told not to: costmodel/weight_stream.h, costmodel/input_reuse.h), and a
// host's caches are shared with other guests. How much the rest costs differs by CPU and by kind of
// operator (docs/costmodel.md), and no record of the profiler's shows it. A calibration records
// whether its predictions counted the reads from memory, and applies only to predictions that agree.
//
// A calibration is fitted from `tensorperf predict --compare --json` outputs of some models on one
// device with one cost model (the per-operator predictions beside the run's per-operator times).
// Per class of operator (its kind and whether it runs chained), an instance's time in the run is
// modelled as `factor` x its prediction + `added_s`: a share more for memory traffic a graph makes
// that the profiler's repeated runs do not see, and a fixed cost per kernel (threads that wake, the
// first touch of its weights). Both are fitted by least squares over every instance of the class,
// each squared error over the instance's measured time (errors weighted between absolute and
// relative), with `added_s` >= 0. A class seen in fewer than `min_models` runs falls back to a
// broader one (chained to alone, a pool to element-wise ops, a depthwise or lean convolution to
// convolutions, then every kernel, as a gemm does; a copy op to every copy). And the graph overhead: the median of
// what a whole run spends beyond its timed kernels and copies. `predict --calibration` applies it.
//
// Where the runs are of more than one batch size, each batch also gets fits of its own runs
// (`for_batch`): a host can run batch 1 and batch 8 of the same kinds of kernel on opposite sides of
// their predictions (a family-26 AMD host: dense layers 0.85x at batch 1 and 1.1x at batch 8), which
// one factor per class cannot follow. A prediction at another batch uses the calibrated batch
// nearest to it (in ratio), and the pooled fits where that batch has no fit for a class's chain.
// It is only of use for models it was not fitted on: bench/costmodel/predict_e2e.py fits one per
// held-out network from the other networks' runs.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "ir/workload.h"

namespace tensorperf::costmodel {

// 5: products of many rows are "gemm", not "dense"; 6: convolutions of few FLOPs per byte are "conv-lean".
inline constexpr int kGraphCalibrationVersion = 6;

// The calibration class of an operator: "conv", "conv-lean" (a convolution of fewer than
// kLeanConvFlopsPerByte FLOPs per byte of its input, weights and output, as a 1x1 convolution of
// few channels: memory-bound, so the graph slows it as it slows an element-wise kernel, not as it
// slows a convolution that computes from cache), "depthwise", "dense" (dense layers and matrix
// products of fewer than kGemmRows rows: the weights stream through once, as a CNN's classifier
// does), "gemm" (products of kGemmRows rows or more on both sides, as a transformer's layers: the
// operands are reused from cache, so the graph slows them as it slows a convolution, not as it slows
// a weight stream), "pool", "elementwise", with ":chained" appended where the executor keeps at least
// half of its activations in its kernel's native layout (`chained_share` >= 0.5,
// runtime/layout_chains.h).
inline constexpr int64_t kGemmRows = 32;
inline constexpr double kLeanConvFlopsPerByte = 8;
std::string calibration_class(const ir::Workload& w, double chained_share);
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
  bool cold_reads = false;  // predicted with its reads from memory (predict --cold-reads)
  struct Op {
    std::string cls;         // calibration_class(), or copy_class() for a layout copy
    double predicted_s = 0;  // per instance, uncalibrated
    double measured_s = 0;   // per instance, in the run
    int64_t count = 0;       // instances
  };
  std::vector<Op> ops;          // the operators and copies the run timed
  double measured_s = 0;        // the whole run (p50)
  double measured_parts_s = 0;  // its kernels' and copies' times summed
};

// Reads a `predict --compare --json` output. InvalidArgument (naming `source`) when it is not one:
// no run's times (predicted without --compare), or a malformed operator.
Result<GraphComparison> comparison_from_predict_json(const nlohmann::json& j, const std::string& source);

// A class's time in a graph: factor x predicted + added_s per instance.
struct CalibrationFit {
  double factor = 1;
  double added_s = 0;
  int models = 0;         // runs with instances of the class
  int64_t instances = 0;  // summed over them
  double seconds(double predicted_s) const { return factor * predicted_s + added_s; }
};

// The fits of one set of runs (all of them, or those of one batch size), and the set's graph overhead.
struct CalibrationFits {
  std::map<std::string, CalibrationFit> fits;  // fitted classes only, "all" and "copy" among them
  double overhead = 1;
  int runs = 0;
};

class GraphCalibration {
 public:
  // InvalidArgument when `comparisons` is empty or mixes devices, cost models or predictions with and
  // without the reads from memory. Runs of more than one batch size also give each batch with at
  // least `min_models` runs fits of its own.
  static Result<GraphCalibration> fit(const std::vector<GraphComparison>& comparisons, int min_models = 2);

  // This calibration as it applies to a model at batch `batch`: the fits of the calibrated batch
  // nearest to it (the smaller of two as near), before the pooled ones; the pooled fits alone where no
  // batch has fits of its own.
  GraphCalibration for_batch(int64_t batch) const;
  // The batch whose fits come first (for_batch); 0 when the pooled fits apply.
  int64_t batch() const { return batch_; }

  // The fit for an operator of `cls`: the selected batch's own or first fitted fallback's, else the
  // pooled fits' own or first fitted fallback's; null when none is (the prediction stays as it is).
  const CalibrationFit* fit_for(std::string_view cls) const;
  // The class whose fit `fit_for(cls)` returns, with "@bN" appended where it is batch N's ("" when
  // none).
  std::string fit_source(std::string_view cls) const;
  // An instance's calibrated seconds.
  double seconds(std::string_view cls, double predicted_s) const {
    const CalibrationFit* f = fit_for(cls);
    return f ? f->seconds(predicted_s) : predicted_s;
  }
  // The whole run over its kernels' and copies' sum (the selected batch's runs', else all runs').
  double overhead() const;

  const std::string& device() const { return device_; }
  const std::string& cost_model_id() const { return cost_model_id_; }
  // Whether it was fitted to predictions that count the reads from memory: it applies
  // only to predictions made the same way.
  bool cold_reads() const { return cold_reads_; }
  const std::map<std::string, CalibrationFit>& fits() const { return pooled_.fits; }  // of all runs
  const std::map<int64_t, CalibrationFits>& batch_fits() const { return batches_; }
  const std::vector<std::string>& models() const { return models_; }  // "resnet18 b1", ...

  nlohmann::json to_json() const;
  static Result<GraphCalibration> from_json(const nlohmann::json& j, const std::string& source);
  Status save(const std::string& path) const;
  static Result<GraphCalibration> load(const std::string& path);

 private:
  // The selected batch's fits (for_batch), null when the pooled fits apply.
  const CalibrationFits* selected() const;

  std::string device_, cost_model_id_;
  bool cold_reads_ = false;
  CalibrationFits pooled_;                   // every run's
  std::map<int64_t, CalibrationFits> batches_;  // batch size -> its runs' (only with two or more sizes)
  int64_t batch_ = 0;                        // the batch selected by for_batch, 0 for none
  std::vector<std::string> models_;
};

}  // namespace tensorperf::costmodel
