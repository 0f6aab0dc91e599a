#include "measure/profiler.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>

#include "base/unix_time.h"

namespace tensorperf::measure {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct PlannedTask {
  const ir::Task* task;
  const kernels::Provider* provider;
  std::vector<kernels::Config> configs;
};

// The default config, then sampled ones that differ from it, n in all (fewer for a small space).
std::vector<kernels::Config> plan_configs(const ir::Workload& w, const kernels::Provider& p, const ProfileOptions& o) {
  std::vector<kernels::Config> configs = {p.default_config(w)};
  configs[0].provider = p.name();
  uint64_t seed = o.seed ^ std::hash<std::string>{}(w.key() + "|" + p.name());
  for (auto& c : sample_configs(p.space(w), p.name(), o.sampler, o.configs_per_task, seed)) {
    if (static_cast<int>(configs.size()) >= o.configs_per_task) break;
    if (c.knobs != configs[0].knobs) configs.push_back(std::move(c));
  }
  return configs;
}

Record failed_preparation(const ir::Workload& w, const Device& d, const kernels::Config& c, const Status& why) {
  Record r;
  r.workload_key = w.key();
  r.device_key = d.key();
  r.target = d.target;
  r.provider = c.provider;
  r.config = c.knobs;
  r.error = ErrorCode::kUnknownError;
  r.error_msg = "not measured, no reference output to check against: " + why.message();
  r.timestamp = unix_seconds();
  r.load = load_average();
  r.clock_mhz = d.clock_mhz;
  return r;
}

}  // namespace

Result<ProfileReport> profile(const std::vector<ir::Task>& tasks,
                              const std::vector<const kernels::Provider*>& providers, const Device& device,
                              const ProfileOptions& options, MeasuredIndex& index, RecordSink& sink,
                              const ProgressFn& progress) {
  const auto start = Clock::now();
  ProfileReport rep;
  std::vector<PlannedTask> plan;
  int64_t total = 0;
  for (const auto& task : tasks) {
    bool supported = false;
    const auto only = options.only_configs.find(task.workload.key());
    if (!options.only_configs.empty() && only == options.only_configs.end()) continue;
    for (const kernels::Provider* p : providers) {
      if (!p->supports(task.workload)) continue;
      supported = true;
      std::vector<kernels::Config> configs;
      if (options.only_configs.empty()) {
        configs = plan_configs(task.workload, *p, options);
      } else {
        for (const kernels::Config& c : only->second)
          if (c.provider == p->name()) configs.push_back(c);
        if (configs.empty()) continue;
      }
      plan.push_back({&task, p, std::move(configs)});
      total += static_cast<int64_t>(plan.back().configs.size());
    }
    if (!supported) rep.unsupported.push_back(task.workload.key());
  }

  // Inputs and the reference output are made once per workload, when something needs measuring.
  std::string runner_key;
  std::unique_ptr<WorkloadRunner> runner;
  Status runner_status;
  auto measure_one = [&](const ir::Workload& w, const kernels::Provider& p, const kernels::Config& config) -> Status {
    if (runner_key != w.key()) {
      auto t = Clock::now();
      runner_key = w.key();
      auto made = WorkloadRunner::create(w, device, options.measure);
      runner = made.ok() ? std::move(made).value() : nullptr;
      runner_status = made.status();
      rep.reference_s += seconds_since(t);
    }
    auto t = Clock::now();
    Record rec = runner ? runner->measure(p, config) : failed_preparation(w, device, config, runner_status);
    rep.overhead_s += std::max(0.0, seconds_since(t) - rec.build_time_s - rec.run_time_s);
    TP_RETURN_IF_ERROR(sink.write(rec));
    index.add(rec);
    ++rep.measured;
    rep.build_s += rec.build_time_s;
    rep.run_s += rec.run_time_s;
    if (!rec.ok()) ++rep.errors;
    if (options.claims) TP_RETURN_IF_ERROR(options.claims->done(point_key(rec.workload_key, rec.device_key, rec.provider, rec.config)));
    return Status::Ok();
  };
  // Points another run held when their turn came.
  struct Deferred {
    size_t task;
    const kernels::Config* config;
  };
  std::vector<Deferred> deferred;
  std::vector<int> measured_per_task(plan.size(), 0);
  // Skips a point already in the index, else measures it if this run holds it. False: another run
  // holds it (its record comes later).
  auto attempt = [&](size_t task, const kernels::Config& config) -> Result<bool> {
    const ir::Workload& w = plan[task].task->workload;
    const kernels::Provider& p = *plan[task].provider;
    if (index.find(w.key(), device.key(), p.name(), config.knobs) != nullptr) {
      ++rep.skipped;
      return true;
    }
    if (options.claims) {
      TP_ASSIGN_OR_RETURN(bool mine, options.claims->claim(point_key(w.key(), device.key(), p.name(), config.knobs)));
      if (!mine) return false;
    }
    TP_RETURN_IF_ERROR(measure_one(w, p, config));
    ++measured_per_task[task];
    return true;
  };

  ProfileProgress at;
  at.task_count = static_cast<int>(plan.size());
  at.configs_total = total;
  for (size_t i = 0; i < plan.size(); ++i) {
    const ir::Workload& w = plan[i].task->workload;
    const kernels::Provider& p = *plan[i].provider;
    at.task_index = static_cast<int>(i);
    at.workload_key = w.key();
    at.provider = p.name();
    at.config_index = 0;
    at.config_count = static_cast<int>(plan[i].configs.size());
    at.elapsed_s = seconds_since(start);
    if (progress) progress(at);
    for (const kernels::Config& config : plan[i].configs) {
      TP_ASSIGN_OR_RETURN(bool done, attempt(i, config));
      if (!done) deferred.push_back({i, &config});
      ++at.config_index;
      ++at.configs_done;
      at.elapsed_s = seconds_since(start);
      if (progress) progress(at);
    }
  }
  // Wait for the other runs' records of the deferred points; measure those whose claim lapsed.
  while (!deferred.empty()) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    if (options.refresh) TP_RETURN_IF_ERROR(options.refresh(index));
    std::vector<Deferred> still;
    for (const Deferred& d : deferred) {
      TP_ASSIGN_OR_RETURN(bool done, attempt(d.task, *d.config));
      if (!done) still.push_back(d);
    }
    deferred = std::move(still);
  }

  // The summary of each (workload, provider): its sample's records, measured now or before.
  for (size_t i = 0; i < plan.size(); ++i) {
    const ir::Workload& w = plan[i].task->workload;
    const kernels::Provider& p = *plan[i].provider;
    TaskSummary s;
    s.workload_key = w.key();
    s.provider = p.name();
    s.count = plan[i].task->count;
    s.flops = w.flops();
    s.configs = static_cast<int>(plan[i].configs.size());
    s.measured = measured_per_task[i];
    std::vector<double> latencies;
    for (const kernels::Config& config : plan[i].configs) {
      const Record* rec = index.find(s.workload_key, device.key(), p.name(), config.knobs);
      if (rec != nullptr && rec->ok()) {
        latencies.push_back(rec->median_cost());
        if (!rec->native_costs.empty() && (s.best_chained_s == 0 || rec->median_native_cost() < s.best_chained_s))
          s.best_chained_s = rec->median_native_cost();
      } else {
        ++s.errors;
      }
    }
    if (!latencies.empty()) {
      std::sort(latencies.begin(), latencies.end());
      size_t n = latencies.size();
      s.best_s = latencies.front();
      s.worst_s = latencies.back();
      s.median_s = n % 2 ? latencies[n / 2] : 0.5 * (latencies[n / 2 - 1] + latencies[n / 2]);
    }
    rep.tasks.push_back(std::move(s));
  }
  rep.wall_s = seconds_since(start);
  return rep;
}

}  // namespace tensorperf::measure
