// The tuning loop: for a model's tasks on this device, ask the task scheduler which task to work on,
// ask that task's candidate sources for a batch, measure it (measure::WorkloadRunner::measure_batch:
// isolated workers, compiles ahead of timing), write every record the moment it exists, tell the
// tuner, repeat until the trial budget, the time budget or every task is done.
//
// A task's candidates come in this order: each provider's default config; the providers' seed
// configs (hand-picked, when enabled); every point of each small space (a provider whose space has
// at most kSmallSpace points, e.g. oneDNN's: all of it is measured); then the tuner's proposals over
// each large space (Halide's). Invalid configs (Provider::validate) and configs already measured are
// never measured and never count as trials.
//
// With measure.also_on (other thread counts of the device's ISA), each compiled candidate is timed
// on those devices too and their records are stored (unless the store has that point already); they
// are not trials of this run and the tuners do not see them: a dataset's second device for free.
//
// Resuming: the store's records of a task on this device count as its trials, are never measured
// again, and are what its tuner starts from; the scheduler's early stopping sees them in order. So
// a run killed at any point and started again continues where it stopped, and a second run with the
// same budget measures nothing.
#pragma once

#include <memory>
#include <span>

#include "costmodel/cost_model.h"
#include "costmodel/device_table.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "db/record_store.h"
#include "ir/workload.h"
#include "kernels/provider.h"
#include "measure/device.h"
#include "measure/record_sink.h"
#include "measure/runner.h"
#include "tune/task_scheduler.h"

namespace tensorperf::tune {

inline constexpr double kSmallSpace = 256;  // spaces up to this size are measured whole

// Predicts the latency of candidate configs of one workload on a device before they are compiled;
// only the order matters.
class CandidateScreen {
 public:
  virtual ~CandidateScreen() = default;
  virtual Result<std::vector<double>> predict(const ir::Workload& w, const measure::Device& device,
                                              std::span<const kernels::Config> configs) const = 0;
};
// A trained cost model as a screen (programs it cannot describe are predicted last). A device the
// model was trained on (`trained_on`, from its file) is described by the vector it learned, not by
// the peaks measured here.
std::shared_ptr<const CandidateScreen> cost_model_screen(std::shared_ptr<const costmodel::CostModel> model,
                                                         costmodel::DeviceTable trained_on = {});

struct TuneOptions {
  std::string tuner = "xgb";  // for the large spaces (tuner.h)
  int64_t trials = 1000;      // measurements of all tasks together, earlier ones included. REQUIRES: >= 1
  double time_budget_s = 0;   // no batch starts after this many seconds (0: no limit)
  int batch = 16;             // measurements per round of one task (at most trials / tasks). REQUIRES: >= 1
  bool seed_configs = true;   // measure the providers' hand-picked configs early
  // Model-based tuners start from related records in the store; with seed_configs, every tuner first
  // measures the best configs the store holds for the workload on the closest other devices. A
  // task's best config is also measured next by the tasks that differ from it only in the epilogue.
  bool transfer = true;
  // Screens the tuners' proposals before anything is compiled: each round asks a tuner for `screen`
  // times the configs it needs and measures the ones `screen_model` predicts fastest (a trained cost
  // model: cost_model_screen). Null: no screening.
  std::shared_ptr<const CandidateScreen> screen_model;
  int screen = 4;  // REQUIRES: >= 1
  // A candidate whose first timing is above slow_cutoff x its task's best cost so far (when its
  // timing starts) is recorded from that one timing: its other repeats are skipped (0: never).
  // REQUIRES: 0 or > 1.
  double slow_cutoff = 2;
  uint64_t seed = 0;
  SchedulerOptions scheduler;
  measure::MeasureOptions measure;
};

struct TuneTask {
  ir::Workload workload;
  int64_t count = 1;  // instances in the model
};

struct TaskResult {
  std::string workload_key;
  int64_t count = 0;
  double flops = 0;
  int64_t trials = 0;    // measurements of this task on this device, earlier runs' included
  int64_t measured = 0;  // in this run
  int64_t errors = 0;    // error records among `trials`
  int64_t screened_rounds = 0;  // rounds whose proposals the cost model screened (TuneOptions::cost_model)
  int seeded_from_other_devices = 0;  // configs queued from the closest other devices' best records
  int sibling_offers = 0;             // best configs of tasks differing only in the epilogue, queued next (transfer)
  std::optional<double> default_s;  // the first provider's default config (Halide's): the untuned latency
  std::optional<double> onednn_s;   // the best oneDNN config
  std::optional<double> best_s;     // the best of every provider
  std::string best_provider;
  nlohmann::json best_config;
  bool converged = false;  // stopped early, or nothing left to try
  std::string failure;     // why the task could not be measured (its reference failed); empty when fine
};

struct TuneReport {
  std::vector<TaskResult> tasks;
  int64_t measured = 0;  // in this run
  int64_t errors = 0;    // among those
  int64_t timings_cut = 0;    // among those, timed once by TuneOptions::slow_cutoff
  int64_t also_measured = 0;  // records on TuneOptions::measure.also_on devices (not trials)
  int64_t known = 0;     // trials found in the store at the start
  double wall_s = 0, build_s = 0, run_s = 0;
  double tuner_s = 0;      // in the tuners: proposing (models, annealing), learning, loading transfer data
  double reference_s = 0;  // making inputs and reference outputs
  std::string stop;  // "trials", "time" or "converged"
  double configs_per_s() const { return wall_s > 0 ? static_cast<double>(measured) / wall_s : 0; }
};

// After every batch.
struct TuneProgress {
  size_t task = 0, task_count = 0;
  std::string workload_key;
  int64_t task_trials = 0;
  std::optional<double> task_best_s;
  int64_t trials = 0, trials_budget = 0;  // all tasks
  double estimated_s = 0;  // sum over tasks of count x best (tasks without a best left out)
  double elapsed_s = 0;
};

// Tunes `tasks` on `device` with `providers`; every record goes to `sink` (which should store it in
// `store`, where the next run resumes from). REQUIRES: the fork-safety conditions of runner.h.
// Errors: a store that cannot be read, a sink that cannot write (records written before stay), an
// unknown tuner or a budget < 1 (InvalidArgument).
Result<TuneReport> tune(const std::vector<TuneTask>& tasks, const std::vector<const kernels::Provider*>& providers,
                        const measure::Device& device, const TuneOptions& options, db::RecordStore& store,
                        measure::RecordSink& sink, const std::function<void(const TuneProgress&)>& progress = {});

}  // namespace tensorperf::tune
