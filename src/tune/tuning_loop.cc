#include "tune/tuning_loop.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include "db/best_configs.h"
#include "db/db_record_sink.h"
#include "measure/measured_index.h"
#include "measure/work_claims.h"
#include "features/workload_features.h"
#include "tune/transfer.h"
#include "tune/tuner.h"

namespace tensorperf::tune {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kInf = std::numeric_limits<double>::infinity();

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// One provider's part of a task: a small space measured whole, or a large one searched by a tuner.
struct ProviderSpace {
  const kernels::Provider* provider;
  SearchSpace space;
  uint64_t next_small = 0;        // small: the next index of the walk
  std::unique_ptr<Tuner> tuner;   // large
  std::vector<TrialResult> told;  // results the tuner has not been told yet
  std::vector<std::pair<double, Point>> reserve;  // screened proposals not measured yet, fastest predicted first
  bool small() const { return space.size() <= kSmallSpace; }
};

class TaskState {
 public:
  TaskState(const TuneTask& task, const std::vector<const kernels::Provider*>& providers,
            const measure::Device& device, const TuneOptions& options)
      : task_(task), device_(device), options_(options) {
    result_.workload_key = task.workload.key();
    result_.count = task.count;
    result_.flops = task.workload.flops();
    for (const kernels::Provider* p : providers) {
      if (!p->supports(task.workload)) continue;
      queue_.push_back({p, p->default_config(task.workload)});
      spaces_.push_back({p, SearchSpace::of(task.workload, *p), 0, nullptr, {}, {}});
    }
    if (options.seed_configs)
      for (const ProviderSpace& ps : spaces_)
        for (kernels::Config& c : ps.provider->seed_configs(task.workload, device.target))
          queue_.push_back({ps.provider, std::move(c)});
  }

  bool supported() const { return !spaces_.empty(); }
  const ir::Workload& workload() const { return task_.workload; }
  TaskResult& result() { return result_; }
  double best() const { return result_.best_s.value_or(kInf); }
  int64_t since_best() const { return since_best_; }

  // The store's records of this task on this device that this run has not seen, in id order: at
  // the start, everything earlier runs measured; later, what other runs sharing the store measured
  // meanwhile. Returns how many were new.
  Result<int64_t> refresh(db::RecordStore& store) {
    db::ScanFilter filter;
    filter.workload_key = result_.workload_key;
    filter.device_key = device_.key();
    filter.format = db::RecordFormat::kNative;
    filter.with_config = false;
    int64_t added = 0;
    TP_RETURN_IF_ERROR(store.scan(filter, [&](const db::StoredRecord& s) -> Status {
      auto r = measure::record_from_line(s.line);
      if (!r.ok() || space_of(r->provider) == nullptr) return Status::Ok();
      if (index_.find(r->workload_key, r->device_key, r->provider, r->config) != nullptr) return Status::Ok();
      observe(*r);
      ++added;
      return Status::Ok();
    }));
    return added;
  }

  // Queues, right after the providers' defaults, the best configs of this workload that the store
  // holds for the closest other devices (db::best_configs_elsewhere): up to `per_provider` distinct
  // configs of each provider. On a new device, what was best on a similar one is measured first.
  Status seed_from_other_devices(db::RecordStore& store, int per_provider) {
    TP_ASSIGN_OR_RETURN(db::BestConfigs best, db::best_configs_elsewhere(store, result_.workload_key, device_.key(),
                                                                         4 * per_provider, device_.target));
    std::vector<Queued> found;
    std::map<std::string, int> taken;
    std::set<std::pair<std::string, std::string>> seen;
    for (const db::StoredRecord& s : best.records) {
      auto r = measure::record_from_line(s.line);
      if (!r.ok() || space_of(r->provider) == nullptr || taken[r->provider] >= per_provider) continue;
      if (!seen.insert({r->provider, r->config.dump()}).second) continue;
      ++taken[r->provider];
      found.push_back({space_of(r->provider)->provider, kernels::Config{r->provider, std::move(r->config)}});
    }
    const auto after_defaults = queue_.begin() + static_cast<std::ptrdiff_t>(std::min(queue_.size(), spaces_.size()));
    queue_.insert(after_defaults, std::make_move_iterator(found.begin()), std::make_move_iterator(found.end()));
    result_.seeded_from_other_devices = static_cast<int>(found.size());
    return Status::Ok();
  }

  // Queues next a config of a sibling task (the same operator and shapes, another epilogue: see
  // sibling_key) that is that task's best, unless this task measured it already or it is queued.
  void offer_from_sibling(const std::string& provider, const nlohmann::json& knobs) {
    ProviderSpace* ps = space_of(provider);
    if (ps == nullptr || index_.find(result_.workload_key, device_.key(), provider, knobs) != nullptr) return;
    for (const Queued& q : queue_)
      if (q.provider == ps->provider && q.config.knobs == knobs) return;
    // After the providers' defaults while they wait, so that they stay the first trials.
    auto at = queue_.begin();
    while (at != queue_.end() && at->config.knobs == at->provider->default_config(task_.workload).knobs) ++at;
    queue_.insert(at, {ps->provider, kernels::Config{provider, knobs}});
    ++result_.sibling_offers;
  }

  // Creates the tuners of the large spaces, telling them what the store held.
  Status start_tuners(const TransferPool* pool) {
    for (ProviderSpace& ps : spaces_) {
      if (ps.small()) continue;
      TunerContext ctx;
      ctx.space = &ps.space;
      ctx.seed = options_.seed ^ std::hash<std::string>{}(result_.workload_key + "|" + ps.provider->name());
      ctx.task_features = features::workload_features(task_.workload);
      for (float d : features::device_key_features(device_.key())) ctx.task_features.push_back(d);
      if (pool != nullptr) ctx.transfer = pool->groups_for(task_.workload, device_.key(), *ps.provider);
      TP_ASSIGN_OR_RETURN(ps.tuner, make_tuner(options_.tuner, ctx));
      flush(ps);
    }
    return Status::Ok();
  }

  // Up to n candidates not measured before, each claimed for this run (claims may be null); empty
  // when nothing is left. Errors: the claims' store failed.
  Result<std::vector<measure::Candidate>> next_candidates(int n, measure::WorkClaims* claims, int& refused) {
    std::vector<measure::Candidate> out;
    refused = 0;
    std::set<std::pair<std::string, std::string>> planned;
    Status failed;
    auto take = [&](const kernels::Provider* p, kernels::Config c) {
      if (!failed.ok() || !p->validate(task_.workload, c).ok()) return;  // invalid: costs nothing, no trial
      if (index_.find(result_.workload_key, device_.key(), p->name(), c.knobs) != nullptr) return;
      if (!planned.insert({p->name(), c.knobs.dump()}).second) return;
      if (claims != nullptr) {
        auto mine = claims->claim(measure::point_key(result_.workload_key, device_.key(), p->name(), c.knobs));
        if (!mine.ok()) failed = mine.status();
        if (mine.ok() && !*mine) ++refused;  // another run is measuring it
        if (!mine.ok() || !*mine) return;
      }
      out.push_back({p, std::move(c)});
    };
    while (static_cast<int>(out.size()) < n && !queue_.empty()) {
      take(queue_.front().provider, std::move(queue_.front().config));
      queue_.erase(queue_.begin());
    }
    for (ProviderSpace& ps : spaces_) {
      if (!ps.small()) continue;
      const auto size = static_cast<uint64_t>(ps.space.size());
      while (static_cast<int>(out.size()) < n && ps.next_small < size) {
        Point p = ps.space.at(ps.next_small++);
        if (ps.space.valid(p)) take(ps.provider, ps.space.config(p));
      }
    }
    for (ProviderSpace& ps : spaces_) {
      if (ps.small()) continue;
      // A proposal can be a config measured under another provider's default or a seed: ask again.
      for (int asks = 0; asks < 4 && static_cast<int>(out.size()) < n; ++asks) {
        const int need = n - static_cast<int>(out.size());
        if (options_.screen_model != nullptr && options_.screen > 1) {
          // Screened: top the reserve of predicted points up from the tuner, measure its fastest.
          if (ps.reserve.size() < static_cast<size_t>(need) * static_cast<size_t>(options_.screen))
            screen_into_reserve(ps, ps.tuner->next_batch(need * options_.screen));
          if (ps.reserve.empty()) break;
          const size_t k = std::min(ps.reserve.size(), static_cast<size_t>(need));
          for (size_t i = 0; i < k; ++i) take(ps.provider, ps.space.config(ps.reserve[i].second));
          ps.reserve.erase(ps.reserve.begin(), ps.reserve.begin() + static_cast<long>(k));
          continue;
        }
        std::vector<Point> points = ps.tuner->next_batch(need);
        if (points.empty()) break;
        for (const Point& p : points) take(ps.provider, ps.space.config(p));
      }
    }
    if (!failed.ok()) return failed;
    return out;
  }

  // Adds the tuner's proposals to the space's reserve, ranked by the screen's prediction (fastest
  // first). Proposals wait there instead of being compiled; the tuner counts them as proposed. A
  // failing screen ranks them after the reserve, in the tuner's own order.
  void screen_into_reserve(ProviderSpace& ps, std::vector<Point> points) {
    if (points.empty()) return;
    std::vector<kernels::Config> configs;
    for (const Point& p : points) configs.push_back(ps.space.config(p));
    auto predicted = options_.screen_model->predict(task_.workload, device_, configs);
    const bool ok = predicted.ok() && predicted->size() == points.size();
    for (size_t i = 0; i < points.size(); ++i)
      ps.reserve.push_back({ok ? (*predicted)[i] : kInf, std::move(points[i])});
    std::stable_sort(ps.reserve.begin(), ps.reserve.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    if (ok) ++result_.screened_rounds;
  }

  // A record of this task on this device: measured now or found in the store.
  void observe(const measure::Record& r) {
    index_.add(r);
    ++result_.trials;
    if (!r.ok()) ++result_.errors;
    const double cost = r.ok() ? r.mean_cost() : kInf;
    if (cost < best()) {
      result_.best_s = cost;
      result_.best_provider = r.provider;
      result_.best_config = r.config;
      since_best_ = 0;
    } else {
      ++since_best_;
    }
    ProviderSpace* ps = space_of(r.provider);
    if (r.ok() && ps == &spaces_.front() && r.config == ps->provider->default_config(task_.workload).knobs)
      result_.default_s = cost;
    if (r.ok() && r.provider == "onednn" && cost < result_.onednn_s.value_or(kInf)) result_.onednn_s = cost;
    if (ps != nullptr && !ps->small())
      if (auto p = ps->space.point_of(r.config)) ps->told.push_back({*p, cost});
  }

  // Tells every tuner what it has not been told.
  void flush_all() {
    for (ProviderSpace& ps : spaces_) flush(ps);
  }

  Result<measure::WorkloadRunner*> runner() {
    if (!runner_) {
      TP_ASSIGN_OR_RETURN(runner_, measure::WorkloadRunner::create(task_.workload, device_, options_.measure));
    }
    return runner_.get();
  }

 private:
  struct Queued {
    const kernels::Provider* provider;
    kernels::Config config;
  };

  ProviderSpace* space_of(const std::string& provider) {
    for (ProviderSpace& ps : spaces_)
      if (ps.provider->name() == provider) return &ps;
    return nullptr;
  }

  void flush(ProviderSpace& ps) {
    if (ps.tuner && !ps.told.empty()) {
      ps.tuner->update(ps.told);
      ps.told.clear();
    }
  }

  TuneTask task_;
  const measure::Device& device_;
  const TuneOptions& options_;
  TaskResult result_;
  std::vector<ProviderSpace> spaces_;
  std::vector<Queued> queue_;
  measure::MeasuredIndex index_;
  int64_t since_best_ = 0;
  std::unique_ptr<measure::WorkloadRunner> runner_;
};

std::string op_group(const ir::Workload& w) { return std::string(ir::op_name(w.op)); }

// Tasks with the same sibling key differ only in their epilogue (conv2d + bias+relu, and the same
// conv2d + bias+add+relu): the main loop nest is the same, and so, nearly, is the best config.
std::string sibling_key(const ir::Workload& w) {
  ir::Workload main = w;
  main.epilogue.clear();
  return main.key();
}

}  // namespace

Result<TuneReport> tune(const std::vector<TuneTask>& tasks, const std::vector<const kernels::Provider*>& providers,
                        const measure::Device& device, const TuneOptions& options, db::RecordStore& store,
                        measure::RecordSink& sink, const std::function<void(const TuneProgress&)>& progress) {
  const auto start = Clock::now();
  if (options.trials < 1) return Status::InvalidArgument("the trial budget must be at least 1");
  if (options.batch < 1) return Status::InvalidArgument("the batch size must be at least 1");
  if (options.slow_cutoff != 0 && !(options.slow_cutoff > 1))
    return Status::InvalidArgument("the slow cutoff must be 0 (off) or above 1, got " +
                                   std::to_string(options.slow_cutoff));
  bool known_tuner = false;
  for (const TunerEntry& e : tuners()) known_tuner = known_tuner || e.name == options.tuner;
  if (!known_tuner) return Status::InvalidArgument("unknown tuner '" + options.tuner + "' (known: " + tuner_names() + ")");

  std::vector<std::unique_ptr<TaskState>> states;
  std::vector<SchedulerTask> sched;
  std::set<ir::OpKind> ops;
  TuneReport report;
  for (const TuneTask& t : tasks) {
    auto s = std::make_unique<TaskState>(t, providers, device, options);
    if (!s->supported()) {
      TaskResult r;
      r.workload_key = t.workload.key();
      r.count = t.count;
      r.flops = t.workload.flops();
      r.failure = "no selected provider supports it";
      report.tasks.push_back(r);
      continue;
    }
    TP_RETURN_IF_ERROR(s->refresh(store).status());
    if (options.seed_configs && options.transfer) TP_RETURN_IF_ERROR(s->seed_from_other_devices(store, 4));
    report.known += s->result().trials;
    ops.insert(t.workload.op);
    sched.push_back({static_cast<double>(t.count), t.workload.flops(), op_group(t.workload)});
    states.push_back(std::move(s));
  }
  const auto transfer_start = Clock::now();
  std::optional<TransferPool> pool;
  if (options.transfer && options.tuner == "xgb" && !providers.empty()) {
    TP_ASSIGN_OR_RETURN(pool, TransferPool::load(store, ops, providers.front()->name()));
  }
  TaskScheduler scheduler(sched, options.scheduler);
  // Runs sharing the store divide the work: a config is measured by the run that claims it.
  db::StoreClaims claims(store, options.measure.build_timeout_s + options.measure.run_timeout_s + 60);
  // With transfer, a task's best is measured next by its siblings (sibling_key), when it is found and
  // at the start (what earlier runs found).
  std::vector<std::string> siblings;
  for (const auto& st : states) siblings.push_back(sibling_key(st->workload()));
  auto offer_best = [&](size_t i) {
    if (!options.transfer || !std::isfinite(states[i]->best())) return;
    const TaskResult& r = states[i]->result();
    for (size_t j = 0; j < states.size(); ++j)
      if (j != i && siblings[j] == siblings[i]) states[j]->offer_from_sibling(r.best_provider, r.best_config);
  };
  for (size_t i = 0; i < states.size(); ++i) offer_best(i);
  for (size_t i = 0; i < states.size(); ++i) {
    TP_RETURN_IF_ERROR(states[i]->start_tuners(pool ? &*pool : nullptr));
    scheduler.restore(i, states[i]->result().trials, states[i]->best(), states[i]->since_best());
  }
  report.tuner_s += seconds_since(transfer_start);

  // As Ansor does: rounds no larger than an even share of the budget, so that the warm-up round
  // reaches every task.
  const int round = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(options.batch, options.trials / std::max<size_t>(1, states.size()))));
  report.stop = "converged";
  while (true) {
    if (scheduler.total_trials() >= options.trials) {
      report.stop = "trials";
      break;
    }
    if (options.time_budget_s > 0 && seconds_since(start) >= options.time_budget_s) {
      report.stop = "time";
      break;
    }
    std::optional<size_t> pick = scheduler.next();
    if (!pick) break;
    TaskState& t = *states[*pick];
    // What other runs sharing the store measured of this task meanwhile.
    TP_ASSIGN_OR_RETURN(int64_t external, t.refresh(store));
    if (external > 0) {
      t.flush_all();
      scheduler.add_external(*pick, external, t.best());
      if (scheduler.total_trials() >= options.trials) continue;
    }
    const int n = static_cast<int>(std::min<int64_t>(round, options.trials - scheduler.total_trials()));
    auto asked = Clock::now();
    int refused = 0;
    TP_ASSIGN_OR_RETURN(std::vector<measure::Candidate> batch, t.next_candidates(n, &claims, refused));
    report.tuner_s += seconds_since(asked);
    if (batch.empty() && refused > 0) {
      // Everything it had to offer is being measured by another run: its records arrive later.
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      continue;
    }
    if (batch.empty()) {
      scheduler.exhaust(*pick);
      continue;
    }
    auto prepared = Clock::now();
    auto runner = t.runner();
    report.reference_s += seconds_since(prepared);
    if (!runner.ok()) {
      t.result().failure = runner.status().message();
      scheduler.exhaust(*pick);
      continue;
    }
    // The also_on devices' records of this task already stored: not written twice.
    std::set<std::string> also_known;
    for (const measure::Device& d : options.measure.also_on) {
      db::ScanFilter filter;
      filter.workload_key = t.workload().key();
      filter.device_key = d.key();
      filter.format = db::RecordFormat::kNative;
      filter.with_config = false;
      TP_RETURN_IF_ERROR(store.scan(filter, [&](const db::StoredRecord& s) -> Status {
        if (auto r = measure::record_from_line(s.line); r.ok())
          also_known.insert(measure::point_key(r->workload_key, r->device_key, r->provider, r->config));
        return Status::Ok();
      }));
    }
    auto on_also = [&](size_t, size_t, measure::Record r) -> Status {
      if (!also_known.insert(measure::point_key(r.workload_key, r.device_key, r.provider, r.config)).second)
        return Status::Ok();
      TP_RETURN_IF_ERROR(sink.write(r));
      ++report.also_measured;
      return Status::Ok();
    };
    int64_t measured = 0;
    const double best_before = t.best();
    TP_RETURN_IF_ERROR((*runner)->measure_batch(
        batch,
        [&](size_t, measure::Record r) -> Status {
          TP_RETURN_IF_ERROR(sink.write(r));
          TP_RETURN_IF_ERROR(claims.done(measure::point_key(r.workload_key, r.device_key, r.provider, r.config)));
          ++measured;
          ++t.result().measured;
          ++report.measured;
          if (!r.ok()) ++report.errors;
          if (r.ok() && static_cast<int>(r.costs.size()) < options.measure.timing.repeat) ++report.timings_cut;
          report.build_s += r.build_time_s;
          report.run_s += r.run_time_s;
          t.observe(r);
          return Status::Ok();
        },
        on_also,
        [&](size_t) {
          // The best so far, this round's records included.
          return options.slow_cutoff > 0 && std::isfinite(t.best()) ? options.slow_cutoff * t.best() : 0.0;
        }));
    auto told = Clock::now();
    t.flush_all();
    report.tuner_s += seconds_since(told);
    scheduler.record(*pick, measured, t.best());
    if (t.best() < best_before) offer_best(*pick);
    if (progress) {
      TuneProgress p;
      p.task = *pick;
      p.task_count = states.size();
      p.workload_key = t.workload().key();
      p.task_trials = t.result().trials;
      p.task_best_s = t.result().best_s;
      p.trials = scheduler.total_trials();
      p.trials_budget = options.trials;
      p.estimated_s = scheduler.objective();
      p.elapsed_s = seconds_since(start);
      progress(p);
    }
  }
  for (size_t i = 0; i < states.size(); ++i) {
    TaskResult r = states[i]->result();
    r.converged = scheduler.stopped(i);
    report.tasks.push_back(std::move(r));
  }
  report.wall_s = seconds_since(start);
  return report;
}

}  // namespace tensorperf::tune
