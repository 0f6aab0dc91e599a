// Inter-operator scheduling of one model on this machine, end to end: a profiling executor over the
// model (every activation in memory of its own), its operator DAG, stage costs measured or composed
// (stage_cost.h) with the database as cache, merges (merge.h), the search (ios_search.h), and the
// stage schedule the executor runs. One Scheduler serves several searches (strategies, r, s, cost
// kinds) of one model, sharing what was measured.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "db/record_store.h"
#include "graphsched/ios_search.h"
#include "graphsched/merge.h"
#include "graphsched/op_graph.h"
#include "graphsched/stage_cost.h"
#include "ir/graph.h"
#include "runtime/executor.h"
#include "runtime/stage_schedule.h"

namespace tensorperf::graphsched {

enum class CostKind { kMeasured, kPredicted };
std::string_view cost_kind_name(CostKind k);  // "measured", "predicted"
Result<CostKind> parse_cost_kind(std::string_view name);

struct SchedulerOptions {
  // How the model's operators run (configs, device, target, threads, seed, store): the profiling
  // executor and every measured stage use it. `schedule` and `reuse_memory` are ignored.
  runtime::ExecutorOptions executor;
  std::string model;  // for the schedule file
  int stage_repeat = 3;
  // Predicted costs: the factor concurrent groups pay (memory bandwidth and caches they share; 0:
  // calibrated on first use, the median ratio of measured to composed cost over up to 8 concurrent
  // stages of the greedy schedule), and each stage's barrier.
  double contention = 0;
  double barrier_s = 5e-6;
};

struct Plan {
  runtime::StageSchedule schedule;
  SearchResult search;
  double sequential_estimate_s = 0;  // the sequential schedule under the same costs
  int64_t measured = 0;              // stage timings this search made
  int64_t from_store = 0;            // stage costs this search found in the database
  double timing_s = 0, storing_s = 0;  // of the search's time: running stages, writing their records
};

class Scheduler {
 public:
  static Result<std::unique_ptr<Scheduler>> create(const ir::Graph& g, const SchedulerOptions& options);
  ~Scheduler();

  Result<Plan> plan(const SearchOptions& search, CostKind cost);
  const OpGraph& ops() const { return ops_; }
  double contention() const { return options_.contention; }
  // Seconds of operator `op` alone on `threads` threads (measured once, then from the database).
  Result<double> op_cost(int op, int threads) { return measured_->op_cost(op, threads); }

 private:
  Scheduler() = default;
  class MergeTimer;
  Status calibrate_contention(int threads);

  SchedulerOptions options_;
  ir::Graph graph_;
  std::unique_ptr<runtime::Executor> profiling_;
  OpGraph ops_;
  std::unique_ptr<MergePlanner> merges_;
  std::unique_ptr<MergeTimer> merge_timer_;
  std::unique_ptr<MeasuredStageCost> measured_;
};

// Loads `g` to run with `s`: checks that `s` was made for `g`, applies its merges (the executor's
// seed gives zoo weights their data first) and loads the executor with the schedule.
Result<std::unique_ptr<runtime::Executor>> load_scheduled(const ir::Graph& g, const runtime::StageSchedule& s,
                                                          runtime::ExecutorOptions options);

}  // namespace tensorperf::graphsched
