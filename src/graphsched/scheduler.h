// Inter-operator scheduling of one model on this machine, end to end: a profiling executor over the
// model (every activation in memory of its own), its operator DAG, stage costs measured or composed
// (stage_cost.h) with the database as cache, merges (merge.h), the search (ios_search.h), and the
// stage schedule the executor runs. One Scheduler serves several searches (strategies, r, s, cost
// kinds) of one model, sharing what was measured.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "db/record_store.h"
#include "graphsched/in_model.h"
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
// "cold" (runtime::StageTiming::kCold), "cold-first-run", "warm".
Result<runtime::StageTiming> parse_stage_timing(std::string_view name);

struct SchedulerOptions {
  // How the model's operators run (configs, device, target, threads, seed, store): the profiling
  // executor and every measured stage use it. `schedule` and `reuse_memory` are ignored.
  runtime::ExecutorOptions executor;
  std::string model;  // for the schedule file
  // This host's clock (measure::Device::clock_mhz; 0: unknown). Stage records keep it, and stage
  // costs cached at another clock (another host of the same device key) are measured again.
  double clock_mhz = 0;
  int stage_repeat = 3;
  // Stages (and operators alone) are timed cold: their inputs and outputs evicted from the caches
  // before each timing (Executor::time_stage, StageTiming::kColdFirstRun), as in a whole run at a
  // large batch, where an operator's input was written many operators ago and its output lands in
  // memory that is not in a cache. Warm timings underestimate such runs, and most what concurrency
  // gains. A stage under 1 ms is timed as the mean of the runs that fill 1 ms, the first of them
  // cold. kCold evicts before every one of those runs; measured side by side on 2026-12-06 its
  // schedules ran no faster (docs/graphsched.md), so it is not the default. Each rule's records
  // are its own.
  runtime::StageTiming stage_timing = runtime::StageTiming::kColdFirstRun;
  // Predicted costs: how concurrent groups slow each other down (stage_cost.h's Contention), fitted
  // on every concurrent stage this scheduler measured for it: first up to 8 of the greedy
  // schedule's; then, after each predicted-cost search, the concurrent stages of the schedule it
  // found that were not measured yet (up to `verify_stages` per round, `verify_rounds` rounds). A
  // stage measured so costs what it measured in the following searches, so the search cannot keep
  // a stage the model got wrong; a round that finds nothing new ends it. Each stage's barrier.
  int verify_rounds = 1;
  int verify_stages = 24;
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
  // A search with the measured stage costs corrected by how the whole model runs them (in_model.h):
  // loads the sequential schedule and `found`'s as the model runs them (memory reused by liveness),
  // profiles each in `runs` runs, fits the factors and searches with `search`; for up to `rounds`
  // searches in all, the schedule found is profiled in turn where it has concurrent stages no
  // profile holds, and the search runs again on all the profiles. Where `found` has no concurrent
  // stage there is no concurrent factor to fit: the plan is `found`'s and
  // in_model().concurrent_stages is 0. The plan's search_s counts the profiles.
  Result<Plan> plan_in_model(const Plan& found, const SearchOptions& search, int runs = 10, int rounds = 2);
  // The factors the last plan_in_model fitted.
  const InModelFactors& in_model() const { return in_model_; }
  const OpGraph& ops() const { return ops_; }
  // The contention model the last predicted-cost search used, and the concurrent stages it was fitted on.
  Contention contention() const { return contention_; }
  size_t contention_samples() const { return samples_.size(); }
  // Seconds of operator `op` alone on `threads` threads (measured once, then from the database).
  Result<double> op_cost(int op, int threads) { return measured_->op_cost(op, threads); }
  // Seconds of stage `c` run on its own (measured once, then from the database).
  Result<double> stage_cost(const StageChoice& c) { return (*measured_)(c); }

 private:
  Scheduler() = default;
  class MergeTimer;
  Status calibrate_contention(int threads);
  // The end of every search: stages in graph order where they allow, the sequential estimate under
  // `fn`, the schedule, and the counters since `t0` and the measured_ counts given.
  Status finish(Plan& plan, const SearchOptions& search, const StageCostFn& fn, double t0, int64_t measured0,
                int64_t stored0, double timing0, double storing0);
  // Measures concurrent stage `c` for the contention model (once): a sample, and a known cost.
  Status sample_stage(const StageChoice& c, int threads);

  SchedulerOptions options_;
  ir::Graph graph_;
  std::unique_ptr<runtime::Executor> profiling_;
  OpGraph ops_;
  std::unique_ptr<MergePlanner> merges_;
  std::unique_ptr<MergeTimer> merge_timer_;
  std::unique_ptr<MeasuredStageCost> measured_;
  Contention contention_;
  std::vector<ContentionSample> samples_;
  std::map<std::string, double> sampled_;  // stage_key -> measured seconds
  int calibrated_threads_ = 0;
  InModelFactors in_model_;
};

// Loads `g` to run with `s`: checks that `s` was made for `g`, applies its merges (the executor's
// seed gives zoo weights their data first) and loads the executor with the schedule.
Result<std::unique_ptr<runtime::Executor>> load_scheduled(const ir::Graph& g, const runtime::StageSchedule& s,
                                                          runtime::ExecutorOptions options);

}  // namespace tensorperf::graphsched
