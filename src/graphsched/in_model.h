// Stage costs corrected by how the whole model runs them.
//
// The search costs a stage by running it alone (stage_cost.h). In the model the same stage runs
// after others that evicted its weights and wrote its inputs elsewhere, and not by one factor for
// every stage: on 2 cores RandWire's operators alone cost at batch 16 what they cost in the model
// while its concurrent stages cost 14-18% more there; NASNet-A's tiny operators at batch 1 cost 1.86x
// their time alone in the model, its concurrent stages 1.60x. So the search overrates concurrency
// in one and underrates it in the other.
//
// The correction, from profiles of the model (Executor::run_stages_timed): the sequential
// schedule's gives each operator's factor (its time in the model over its time alone on all the
// threads), and found schedules' give each of their concurrent stages' time in the model and one
// factor for the concurrent stages no profile holds: what the profiled ones take in the model over
// their time alone times their operators' factors (the ratio of sums, so the long stages, which
// carry the model's time, weigh most). A stage then costs its time in the model where a profile
// holds it, else its time alone x its operators' factor (weighted by their times alone at their
// groups' threads) x the concurrent factor when it has several groups. A search with those costs
// (Scheduler::plan_in_model) is one more candidate for the whole model to judge.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "graphsched/ios_search.h"
#include "graphsched/op_graph.h"
#include "runtime/executor.h"
#include "runtime/stage_schedule.h"

namespace tensorperf::graphsched {

// One stage as it ran in the model: its groups as the scheduler's operators (a copy the executor
// placed is not one: its time counts with its stage's operators; the split of a merged output
// neither; stage.cost_s is not set) and the median of its timed runs.
struct StageInModel {
  StageChoice stage;
  double model_s = 0;
  // Steps of the stage that are none of the scheduler's operators (layout copies the executor
  // placed): their op names. model_s includes them; the stage's cost alone does not.
  std::vector<std::string> placed;
};

// Runs `e` (loaded with schedule `s` over the graph `ops` was made from) `runs` times with its stages
// timed, after one untimed run. A stage with none of the scheduler's operators is left out.
// REQUIRES: runs >= 1.
Result<std::vector<StageInModel>> profile_in_model(runtime::Executor& e, const runtime::StageSchedule& s,
                                                   const OpGraph& ops, int threads, int runs);

struct InModelFactors {
  std::vector<double> op;  // per operator: its time in the model over its time alone (1: not profiled)
  double concurrent = 1;   // concurrent stages in the model over their predicted time without it
  int concurrent_stages = 0;  // the concurrent stages it was fitted on
  // Seconds in the model of each profiled concurrent stage, by stage_key (the mean where several
  // profiles hold it).
  std::unordered_map<std::string, double> stages;
  // Of those, the stages that took longer in the model than their operators' stages in the
  // sequential profile: concurrency lost there.
  int losing_stages = 0;
  // Scheduler::plan_in_model: the sums of the sequential and the found schedule's profiled stages.
  double sequential_model_s = 0, found_model_s = 0;
  int rounds = 0;  // the found schedules profiled
  // Seconds in the model of concurrent stage `c` where a profile holds it, else null.
  const double* model_time(const StageChoice& c) const;
  // Seconds stage `c` takes in the model: its profiled time, else from its time alone; `op_cost`
  // weighs its operators.
  Result<double> cost(const StageChoice& c, double alone_s, const OpCostFn& op_cost) const;
  // The operators' time-weighted factor of stage `c` (without the concurrent factor).
  Result<double> ops_factor(const StageChoice& c, const OpCostFn& op_cost) const;
};

// Operator factors are clamped to [1/4, 8]: a kernel of a few microseconds times to a few
// microseconds either way, and one outlier should not make the search avoid or seek it.
constexpr double kMinOpFactor = 0.25, kMaxOpFactor = 8.0;

// Fits the factors of `num_ops` operators from the sequential schedule's profile (each stage one
// operator on `threads` threads) and other schedules' (their concurrent stages; merged and one-group
// stages are not used), with `alone` giving a stage's time alone and `op_cost` an operator's.
Result<InModelFactors> fit_in_model(int num_ops, int threads, const std::vector<StageInModel>& sequential,
                                    const std::vector<std::vector<StageInModel>>& found, const StageCostFn& alone,
                                    const OpCostFn& op_cost);

}  // namespace tensorperf::graphsched
