#include "graphsched/scheduler.h"

#include <algorithm>
#include <map>

#include "base/steady_time.h"
#include "graphsched/schedule_build.h"
#include "measure/timing.h"

namespace tensorperf::graphsched {

std::string_view cost_kind_name(CostKind k) { return k == CostKind::kMeasured ? "measured" : "predicted"; }

Result<CostKind> parse_cost_kind(std::string_view name) {
  if (name == "measured") return CostKind::kMeasured;
  if (name == "predicted") return CostKind::kPredicted;
  return Status::InvalidArgument("unknown cost '" + std::string(name) + "'; use measured or predicted");
}

namespace {
constexpr std::pair<runtime::StageTiming, std::string_view> kStageTimings[] = {
    {runtime::StageTiming::kCold, "cold"},
    {runtime::StageTiming::kColdFirstRun, "cold-first-run"},
    {runtime::StageTiming::kWarm, "warm"},
};
}  // namespace

Result<runtime::StageTiming> parse_stage_timing(std::string_view name) {
  for (const auto& [k, n] : kStageTimings)
    if (n == name) return k;
  return Status::InvalidArgument("unknown stage timing '" + std::string(name) + "'; use cold, cold-first-run or warm");
}

// Times a merged stage: the merged convolution alone (merge.h's subgraph) on an executor of its own.
class Scheduler::MergeTimer : public MergedStageTimer {
 public:
  MergeTimer(const OpGraph& ops, const MergePlanner& planner, const SchedulerOptions& o)
      : ops_(ops), planner_(planner), o_(o) {}

  Result<double> time_merged(const std::vector<int>& members, int threads) override {
    std::vector<std::string> names;
    for (int v : members) names.push_back(ops_.names[v]);
    TP_ASSIGN_OR_RETURN(ir::Graph sub, planner_.merged_subgraph(names, o_.executor.seed));
    runtime::ExecutorOptions eo = o_.executor;
    eo.threads = threads;
    eo.schedule = nullptr;
    eo.check_stored_configs = false;
    eo.progress = nullptr;
    TP_ASSIGN_OR_RETURN(std::unique_ptr<runtime::Executor> e, runtime::Executor::load(sub, eo));
    measure::TimingOptions t;
    t.repeat = std::max(o_.stage_repeat, 1);
    t.min_repeat_ms = 1;
    // As MeasuredStageCost's other stages: the shared input and the outputs evicted.
    runtime::apply_stage_timing(
        o_.stage_timing,
        [&e] {
          for (size_t i = 0; i < e->num_inputs(); ++i) measure::evict(e->input(i).bytes(), e->input(i).type().num_bytes());
          for (size_t i = 0; i < e->num_outputs(); ++i)
            measure::evict(e->output(i).bytes(), e->output(i).type().num_bytes());
        },
        t);
    TP_ASSIGN_OR_RETURN(measure::Timing timing, measure::time_runs([&] { return e->run(); }, t));
    std::sort(timing.costs.begin(), timing.costs.end());
    return timing.costs[timing.costs.size() / 2];
  }

 private:
  const OpGraph& ops_;
  const MergePlanner& planner_;
  const SchedulerOptions& o_;
};

Scheduler::~Scheduler() = default;

Result<std::unique_ptr<Scheduler>> Scheduler::create(const ir::Graph& g, const SchedulerOptions& options) {
  std::unique_ptr<Scheduler> s(new Scheduler());
  s->options_ = options;
  s->options_.executor.schedule = nullptr;
  s->options_.executor.reuse_memory = false;
  s->graph_ = g;
  TP_ASSIGN_OR_RETURN(s->profiling_, runtime::Executor::load(s->graph_, s->options_.executor));
  s->ops_ = OpGraph::from_executor(*s->profiling_);
  s->ops_.fingerprint = runtime::graph_fingerprint(g);
  TP_ASSIGN_OR_RETURN(MergePlanner planner, MergePlanner::analyse(s->graph_));
  s->merges_ = std::make_unique<MergePlanner>(std::move(planner));
  s->merge_timer_ = std::make_unique<MergeTimer>(s->ops_, *s->merges_, s->options_);
  s->measured_ = std::make_unique<MeasuredStageCost>(
      *s->profiling_, s->ops_, s->options_.executor.store, s->options_.executor.device_key, s->options_.executor.target,
      s->merge_timer_.get(), s->options_.stage_repeat, s->options_.stage_timing, s->options_.clock_mhz);
  return s;
}

Status Scheduler::sample_stage(const StageChoice& c, int threads) {
  const std::string key = stage_key(c);
  if (c.merged || c.groups.size() < 2 || sampled_.count(key)) return Status::Ok();
  ComposedStageCost terms([this](int op, int t) { return measured_->op_cost(op, t); }, Contention{}, 0.0, threads);
  TP_ASSIGN_OR_RETURN(ContentionSample s, terms.terms(c));
  TP_ASSIGN_OR_RETURN(s.measured_s, (*measured_)(c));
  samples_.push_back(s);
  sampled_[key] = s.measured_s;
  return Status::Ok();
}

Status Scheduler::calibrate_contention(int threads) {
  if (calibrated_threads_ == threads) return Status::Ok();
  samples_.clear();
  sampled_.clear();
  calibrated_threads_ = threads;
  auto op_cost = [this](int op, int t) { return measured_->op_cost(op, t); };
  ComposedStageCost alone(op_cost, Contention{}, 0.0, threads);
  SearchOptions greedy;
  greedy.strategy = Strategy::kGreedy;
  greedy.threads = threads;
  TP_ASSIGN_OR_RETURN(SearchResult r,
                      schedule_graph(ops_, greedy, [&](const StageChoice& c) { return alone(c); }, {}, op_cost));
  for (const StageChoice& c : r.stages) {
    if (c.groups.size() < 2) continue;
    TP_RETURN_IF_ERROR(sample_stage(c, threads));
    if (samples_.size() >= 8) break;
  }
  contention_ = fit_contention(samples_);
  return Status::Ok();
}

Result<Plan> Scheduler::plan(const SearchOptions& search, CostKind cost) {
  const double t0 = steady_seconds();  // the search's time includes calibrating and checking the model
  const int64_t measured0 = measured_->measured(), stored0 = measured_->from_store();
  const double timing0 = measured_->timing_s(), storing0 = measured_->storing_s();
  auto can_merge = [this](const std::vector<int>& members) {
    std::vector<std::string> names;
    for (int v : members) names.push_back(ops_.names[v]);
    return merges_->can_merge(names);
  };
  auto op_cost = [this](int op, int threads) { return measured_->op_cost(op, threads); };
  StageCostFn fn;
  StageBoundFn bound;
  std::unique_ptr<ComposedStageCost> composed, alone;
  if (cost == CostKind::kMeasured) {
    fn = [this](const StageChoice& c) { return (*measured_)(c); };
    // Branch and bound: a stage takes at least about as long as its longest group's operators
    // alone (10% margin for operators that run faster back to back than alone).
    alone = std::make_unique<ComposedStageCost>(op_cost, Contention{}, 0.0, search.threads);
    bound = [&alone](const StageChoice& c) -> Result<double> {
      TP_ASSIGN_OR_RETURN(double s, (*alone)(c));
      return 0.9 * s;
    };
  } else {
    TP_RETURN_IF_ERROR(calibrate_contention(search.threads));
  }
  auto predicted = [&]() {
    composed = std::make_unique<ComposedStageCost>(
        op_cost, contention_, options_.barrier_s, search.threads,
        [this](const std::vector<int>& members, int threads) {
          return (*measured_)(StageChoice{{members}, {threads}, true});
        });
    return [this, &composed](const StageChoice& c) -> Result<double> {
      if (auto it = sampled_.find(stage_key(c)); it != sampled_.end()) return it->second;
      return (*composed)(c);
    };
  };
  if (cost == CostKind::kPredicted) fn = predicted();
  Plan plan;
  TP_ASSIGN_OR_RETURN(plan.search, schedule_graph(ops_, search, fn, can_merge, op_cost, bound));
  for (int round = 0; cost == CostKind::kPredicted && round < options_.verify_rounds; ++round) {
    // Measure the found schedule's concurrent stages the model has not seen, refit, search again
    // (within what is left of its time budget; kept only where it went as deep as the first).
    SearchOptions again = search;
    if (search.time_budget_s > 0) {
      again.time_budget_s = search.time_budget_s - (steady_seconds() - t0);
      if (again.time_budget_s <= 0) break;
    }
    const size_t before = samples_.size();
    for (const StageChoice& c : plan.search.stages) {
      if (samples_.size() - before >= static_cast<size_t>(options_.verify_stages)) break;
      TP_RETURN_IF_ERROR(sample_stage(c, search.threads));
    }
    if (samples_.size() == before) break;
    contention_ = fit_contention(samples_);
    fn = predicted();
    TP_ASSIGN_OR_RETURN(SearchResult refit, schedule_graph(ops_, again, fn, can_merge, op_cost, bound));
    if (refit.lanes < plan.search.lanes) break;  // the budget cut it shallower than the first search
    plan.search = std::move(refit);
  }
  TP_RETURN_IF_ERROR(finish(plan, search, fn, t0, measured0, stored0, timing0, storing0));
  return plan;
}

Status Scheduler::finish(Plan& plan, const SearchOptions& search, const StageCostFn& fn, double t0,
                         int64_t measured0, int64_t stored0, double timing0, double storing0) {
  auto op_cost = [this](int op, int threads) { return measured_->op_cost(op, threads); };
  // The same schedule in graph order where its stages allow (ties fell where they fell): a search
  // that overlaps and merges nothing gives the sequential schedule itself.
  order_single_stages(ops_, plan.search.stages, op_cost);
  plan.search.search_s = steady_seconds() - t0;
  plan.sequential_estimate_s = 0;
  for (int v = 0; v < ops_.size(); ++v) {
    TP_ASSIGN_OR_RETURN(double s, fn(StageChoice{{{v}}, {search.threads}, false}));
    plan.sequential_estimate_s += s;
  }
  plan.schedule = make_schedule(ops_, plan.search, search.threads);
  plan.schedule.model = options_.model;
  plan.schedule.batch = static_cast<int>(graph_.batch());
  plan.schedule.device = options_.executor.device_key;
  plan.schedule.strategy = std::string(strategy_name(search.strategy));
  plan.schedule.graph = runtime::graph_fingerprint(graph_);
  plan.schedule.sequential_ms = plan.sequential_estimate_s * 1e3;
  plan.schedule.configs.clear();
  for (const runtime::StepInfo& st : profiling_->steps())
    if (!st.workload.empty())
      plan.schedule.configs[st.workload] = runtime::ChosenConfig{kernels::Config{st.provider, st.config}, st.source, st.device, 0};
  plan.measured = measured_->measured() - measured0;
  plan.from_store = measured_->from_store() - stored0;
  plan.timing_s = measured_->timing_s() - timing0;
  plan.storing_s = measured_->storing_s() - storing0;
  return Status::Ok();
}

Result<Plan> Scheduler::plan_in_model(const Plan& found, const SearchOptions& search, int runs, int rounds) {
  const double t0 = steady_seconds();
  const int64_t measured0 = measured_->measured(), stored0 = measured_->from_store();
  const double timing0 = measured_->timing_s(), storing0 = measured_->storing_s();
  in_model_ = InModelFactors{};
  in_model_.op.assign(ops_.size(), 1.0);
  auto has_concurrent = [](const SearchResult& r) {
    for (const StageChoice& c : r.stages)
      if (!c.merged && c.groups.size() > 1) return true;
    return false;
  };
  if (!has_concurrent(found.search)) return found;

  // The schedules as a user runs them: memory reused by liveness, the found schedule's kernels.
  runtime::ExecutorOptions eo = options_.executor;
  eo.reuse_memory = runtime::ExecutorOptions{}.reuse_memory;
  eo.progress = nullptr;
  runtime::StageSchedule sequential = runtime::sequential_schedule(ops_.names, search.threads);
  sequential.model = found.schedule.model;
  sequential.batch = found.schedule.batch;
  sequential.device = found.schedule.device;
  sequential.graph = found.schedule.graph;
  sequential.configs = found.schedule.configs;
  TP_ASSIGN_OR_RETURN(std::unique_ptr<runtime::Executor> seq_exec, load_scheduled(graph_, sequential, eo));
  TP_ASSIGN_OR_RETURN(std::unique_ptr<runtime::Executor> found_exec, load_scheduled(graph_, found.schedule, eo));
  // Alternating halves, so that a drift of the machine's speed falls on both profiles alike.
  std::vector<StageInModel> seq_profile;
  std::vector<std::vector<StageInModel>> profiles(1);
  const int half = std::max(1, runs / 2);
  for (int pass = 0; pass < 2; ++pass) {
    TP_ASSIGN_OR_RETURN(std::vector<StageInModel> a, profile_in_model(*seq_exec, sequential, ops_, search.threads, half));
    TP_ASSIGN_OR_RETURN(std::vector<StageInModel> b,
                        profile_in_model(*found_exec, found.schedule, ops_, search.threads, half));
    if (pass == 0) {
      seq_profile = std::move(a), profiles[0] = std::move(b);
      continue;
    }
    // The mean of the two halves' medians, stage by stage (both profiles list the same stages).
    for (size_t k = 0; k < seq_profile.size() && k < a.size(); ++k)
      seq_profile[k].model_s = 0.5 * (seq_profile[k].model_s + a[k].model_s);
    for (size_t k = 0; k < profiles[0].size() && k < b.size(); ++k)
      profiles[0][k].model_s = 0.5 * (profiles[0][k].model_s + b[k].model_s);
  }
  seq_exec.reset();
  found_exec.reset();
  double sequential_model_s = 0, found_model_s = 0;
  for (const StageInModel& m : seq_profile) sequential_model_s += m.model_s;
  for (const StageInModel& m : profiles[0]) found_model_s += m.model_s;

  auto op_cost = [this](int op, int threads) { return measured_->op_cost(op, threads); };
  auto alone_fn = [this](const StageChoice& c) { return (*measured_)(c); };
  auto can_merge = [this](const std::vector<int>& members) {
    std::vector<std::string> names;
    for (int v : members) names.push_back(ops_.names[v]);
    return merges_->can_merge(names);
  };
  const InModelFactors& f = in_model_;
  // A profiled stage costs its time in the model, unmeasured alone.
  StageCostFn fn = [this, &f, op_cost](const StageChoice& c) -> Result<double> {
    if (const double* known = f.model_time(c)) return *known;
    TP_ASSIGN_OR_RETURN(double alone, (*measured_)(c));
    return f.cost(c, alone, op_cost);
  };
  // The measured search's bound, corrected alike (the concurrent factor only where it lowers it).
  ComposedStageCost alone(op_cost, Contention{}, 0.0, search.threads);
  StageBoundFn bound = [&alone, &f, op_cost](const StageChoice& c) -> Result<double> {
    if (const double* known = f.model_time(c)) return *known;
    TP_ASSIGN_OR_RETURN(double s, alone(c));
    TP_ASSIGN_OR_RETURN(double w, f.ops_factor(c, op_cost));
    const bool several = !c.merged && c.groups.size() > 1;
    return 0.9 * s * w * (several ? std::min(1.0, f.concurrent) : 1.0);
  };
  Plan plan;
  for (int round = 0; round < std::max(1, rounds); ++round) {
    TP_ASSIGN_OR_RETURN(in_model_,
                        fit_in_model(ops_.size(), search.threads, seq_profile, profiles, alone_fn, op_cost));
    SearchOptions again = search;
    if (search.time_budget_s > 0) again.time_budget_s = std::max(1.0, search.time_budget_s - (steady_seconds() - t0));
    TP_ASSIGN_OR_RETURN(plan.search, schedule_graph(ops_, again, fn, can_merge, op_cost, bound));
    if (round + 1 >= rounds) break;
    // The new schedule's concurrent stages that no profile holds yet: profile it in the model too,
    // refit and search again, so that the search cannot keep a stage the factors got wrong.
    bool fresh = false;
    for (const StageChoice& c : plan.search.stages)
      fresh |= !c.merged && c.groups.size() > 1 && !in_model_.model_time(c);
    if (!fresh) break;
    Plan next;
    next.search = plan.search;
    TP_RETURN_IF_ERROR(finish(next, search, fn, t0, measured0, stored0, timing0, storing0));
    TP_ASSIGN_OR_RETURN(std::unique_ptr<runtime::Executor> e, load_scheduled(graph_, next.schedule, eo));
    TP_ASSIGN_OR_RETURN(std::vector<StageInModel> p, profile_in_model(*e, next.schedule, ops_, search.threads, runs));
    profiles.push_back(std::move(p));
  }
  in_model_.sequential_model_s = sequential_model_s;
  in_model_.found_model_s = found_model_s;
  in_model_.rounds = static_cast<int>(profiles.size());
  TP_RETURN_IF_ERROR(finish(plan, search, fn, t0, measured0, stored0, timing0, storing0));
  return plan;
}

Result<std::unique_ptr<runtime::Executor>> load_scheduled(const ir::Graph& g, const runtime::StageSchedule& s,
                                                          runtime::ExecutorOptions options) {
  const std::string fp = runtime::graph_fingerprint(g);
  if (s.graph != fp)
    return Status::InvalidArgument("the schedule was made for another graph (" +
                                   (s.model.empty() ? std::string("unnamed") : s.model) + " at batch " +
                                   std::to_string(s.batch) + ", fingerprint " + s.graph + "; this graph's is " + fp +
                                   "): make one with `tensorperf schedule`");
  TP_ASSIGN_OR_RETURN(ir::Graph merged, apply_merges(g, s.merges, options.seed));
  options.schedule = &s;
  for (const auto& [w, c] : s.configs) options.fixed_configs.emplace(w, c);
  return runtime::Executor::load(merged, options);
}

}  // namespace tensorperf::graphsched
