// The profiler: for every task of a model and every provider that supports it, measure sampled
// configs (the provider's default config always first) with the isolated runner and write every
// record to a sink as soon as it exists. Points already in the MeasuredIndex are skipped, so an
// interrupted profile resumes where it stopped. What `tensorperf profile` runs.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "ir/task_extraction.h"
#include "kernels/provider.h"
#include "measure/device.h"
#include "measure/measured_index.h"
#include "measure/record_sink.h"
#include "measure/runner.h"
#include "measure/sampler.h"
#include "measure/work_claims.h"

namespace tensorperf::measure {

struct ProfileOptions {
  int configs_per_task = 8;  // per (task, provider), the default config included; REQUIRES: >= 1
  SamplerKind sampler = SamplerKind::kRandom;
  uint64_t seed = 0;  // the sample of each (task, provider) depends on it, its key and provider
  // Non-empty: exactly these configs (each naming its provider) of each workload key are measured,
  // in place of the default and the sample; a task whose key it lacks is left out. The configs a
  // run chose (`tensorperf run --json`), to time them alone on the host of the day.
  std::map<std::string, std::vector<kernels::Config>> only_configs;
  MeasureOptions measure;
  // Runs sharing a store divide the work (null: no sharing). A point claimed by another run is
  // left to it; at the end, the profile waits for those points' records, reading them with
  // `refresh` (which adds the store's new records to the index), and measures any whose claim
  // lapsed without a record.
  WorkClaims* claims = nullptr;
  std::function<Status(MeasuredIndex&)> refresh;
};

// Where the profile is, after each config (measured or skipped) and at the start of each task.
struct ProfileProgress {
  int task_index = 0, task_count = 0;  // 0-based task (a (workload, provider) pair) of task_count
  std::string workload_key, provider;
  int config_index = 0, config_count = 0;       // configs of this task finished so far
  int64_t configs_done = 0, configs_total = 0;  // over the whole profile (skipped ones included)
  double elapsed_s = 0;
};
using ProgressFn = std::function<void(const ProfileProgress&)>;

// One (workload, provider) of the profile. Latencies are the records' median costs over the configs
// of this run's sample, whether measured now or found in the index.
struct TaskSummary {
  std::string workload_key;
  std::string provider;
  int64_t count = 0;                             // instances of the workload in the model
  double flops = 0;                              // of one instance
  int configs = 0;                               // in the sample
  int measured = 0;                              // measured in this run (the others were already recorded)
  int errors = 0;                                // error records among the sample
  double best_s = 0, median_s = 0, worst_s = 0;  // over ok configs; 0 when none is ok
  // The best median native cost (Record::native_costs: as a graph that chains the kernel's native
  // layout runs it) over ok configs that have one; 0 when none has (Halide's plain-layout kernels).
  double best_chained_s = 0;
  double best_gflops() const { return best_s > 0 ? flops / best_s / 1e9 : 0; }
};

struct ProfileReport {
  std::vector<TaskSummary> tasks;
  std::vector<std::string> unsupported;           // workload keys no selected provider supports
  int64_t measured = 0, skipped = 0, errors = 0;  // errors: among the measured
  double build_s = 0;                             // sum of build_time_s over the measured
  double run_s = 0;                               // sum of run_time_s
  double overhead_s = 0;                          // the rest of each measurement: fork, pipes, worker exit
  double reference_s = 0;                         // making inputs and reference outputs
  double wall_s = 0;                              // the whole profile
  double configs_per_s() const { return wall_s > 0 ? static_cast<double>(measured) / wall_s : 0; }
};

// REQUIRES: the fork-safety conditions of runner.h. Errors: only a sink that fails to write (the
// records written before it are kept); every measurement failure is a record.
Result<ProfileReport> profile(const std::vector<ir::Task>& tasks,
                              const std::vector<const kernels::Provider*>& providers, const Device& device,
                              const ProfileOptions& options, MeasuredIndex& index, RecordSink& sink,
                              const ProgressFn& progress = {});

}  // namespace tensorperf::measure
