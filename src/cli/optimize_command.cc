// `tensorperf optimize`: run a model with what the database knows, tune what it is missing within
// a budget, run it again, and print before / after. The two runs are `tensorperf run --json` in
// child processes: a run starts OpenMP's and Halide's thread pools, after which this process could
// no longer fork the tuner's measurement workers safely (measure/runner.h).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/exit.h"
#include "cli/model_source.h"
#include "cli/model_timing.h"
#include "cli/table.h"
#include "cli/validators.h"
#include "db/db_record_sink.h"
#include "db/record_store.h"
#include "ir/task_extraction.h"
#include "kernels/provider.h"
#include "measure/device.h"
#include "measure/runner.h"
#include "tune/tuner.h"
#include "tune/tuning_loop.h"

namespace tensorperf::cli {
namespace {

struct OptimizeOptions {
  ModelSource source;
  std::string time_budget = "5m";
  int64_t trials = 0;
  std::string tuner = "xgb";
  int threads = 0;
  std::string isa = "native";
  std::string db = "tensorperf.db";
  int repeat = 30;
  bool json = false;
};

nlohmann::json run_child(const OptimizeOptions& o, const std::string& phase) {
  std::fprintf(stderr, "optimize: running %s (%s)\n", o.source.name().c_str(), phase.c_str());
  return run_in_child(o.source, ChildRun{o.threads, o.isa, o.db, o.repeat}, "the " + phase + " run");
}

std::string coverage_line(const nlohmann::json& run) {
  const auto& c = run.at("coverage");
  const int tuned = c.at("tuned"), closest = c.at("closest_device"), defaults = c.at("default");
  return fmt::format("{} of {} tuned here, {} closest device, {} default", tuned, tuned + closest + defaults, closest,
                     defaults);
}

void run_optimize(const OptimizeOptions& o) {
  double budget_s = 0;
  {
    Result<double> b = parse_duration(o.time_budget);
    if (!b.ok()) throw CommandFailed(b.status().message(), kExitUsage);
    budget_s = *b;
  }
  if (o.trials < 0) throw CommandFailed("--trials must not be negative", kExitUsage);
  if (Status known = tune::check_tuner_name(o.tuner); !known.ok()) throw CommandFailed(known.message(), kExitUsage);
  const ir::Graph graph = o.source.load();  // a bad model fails before anything runs
  std::vector<tune::TuneTask> tasks;
  for (const ir::Task& t : check(ir::extract_tasks(graph))) tasks.push_back({t.workload, t.count});
  measure::DeviceOptions device_options;
  device_options.threads = o.threads > 0 ? o.threads : static_cast<int>(measure::pinned_cpus(1 << 16).size());
  device_options.isa = o.isa;
  const measure::Device device = check(measure::detect_device(device_options));
  { std::unique_ptr<db::RecordStore> create = check(db::open_store(o.db, db::OpenMode::kCreate)); }

  const nlohmann::json before = run_child(o, "before tuning");

  std::unique_ptr<db::RecordStore> store = check(db::open_store(o.db, db::OpenMode::kCreate));
  db::DbRecordSink sink(*store);
  tune::TuneOptions options;
  options.tuner = o.tuner;
  // Without --trials, the time budget decides: a budget no model of the zoo exhausts in trials.
  options.trials = o.trials > 0 ? o.trials : static_cast<int64_t>(tasks.size()) * 1000;
  options.time_budget_s = budget_s;
  const measure::CpuPlan cpus = measure::plan_cpus(device.threads);
  options.measure.build_jobs = static_cast<int>(cpus.timing.size() + cpus.build.size());
  std::fprintf(stderr, "optimize: tuning %zu workloads of %s on %s for up to %.0f s\n", tasks.size(),
               o.source.name().c_str(), device.key().c_str(), budget_s);
  const tune::TuneReport rep = check(tune::tune(
      tasks, kernels::providers(), device, options, *store, sink, [&](const tune::TuneProgress& p) {
        std::fprintf(stderr, "[%5lld trials %6.0f s] task %zu/%zu | model est. %.3f ms\n",
                     static_cast<long long>(p.trials), p.elapsed_s, p.task + 1, p.task_count, p.estimated_s * 1e3);
      }));
  store.reset();

  const nlohmann::json after = run_child(o, "after tuning");
  const double before_ms = before.at("latency_ms").at("p50"), after_ms = after.at("latency_ms").at("p50");
  if (o.json) {
    nlohmann::json out{{"model", o.source.name()},
                       {"device", device.key()},
                       {"tuning", {{"measured", rep.measured}, {"known_before", rep.known}, {"errors", rep.errors},
                                   {"seconds", rep.wall_s}, {"stop", rep.stop}}},
                       {"before", before},
                       {"after", after},
                       {"speedup", after_ms > 0 ? before_ms / after_ms : 0.0}};
    std::puts(out.dump(2).c_str());
    return;
  }
  Table table({{""}, {"latency p50 ms", Align::kRight}, {"p90 ms", Align::kRight}, {"configs"}});
  table.add_row({"before", fmt::format("{:.3f}", before_ms), fmt::format("{:.3f}", double(before["latency_ms"]["p90"])),
                 coverage_line(before)});
  table.add_row({"after", fmt::format("{:.3f}", after_ms), fmt::format("{:.3f}", double(after["latency_ms"]["p90"])),
                 coverage_line(after)});
  table.print();
  std::printf("\n%s at batch %lld on %s: %.2fx (%lld configs measured in %.0f s, %lld known before; stopped on %s)\n",
              o.source.name().c_str(), static_cast<long long>(graph.batch()), device.key().c_str(),
              after_ms > 0 ? before_ms / after_ms : 0.0, static_cast<long long>(rep.measured), rep.wall_s,
              static_cast<long long>(rep.known), rep.stop.c_str());
}

}  // namespace

void register_optimize_command(CLI::App& app) {
  static OptimizeOptions o;
  auto* cmd = app.add_subcommand(
      "optimize", "run a model with the best known configs, tune what it is missing, run it again: before / after");
  o.source.add_options(cmd, "--graph-seed");
  cmd->add_option("--time-budget", o.time_budget, "how long to tune, e.g. 90s, 5m, 1h")->capture_default_str();
  cmd->add_option("--trials", o.trials, "measurements for the whole model, those in the database included "
                                        "(default: as many as the time budget allows)");
  cmd->add_option("--tuner", o.tuner, "search over large spaces: " + tune::tuner_names())->capture_default_str();
  cmd->add_option("--threads", o.threads, "threads per kernel (default: every CPU available)")->check(positive());
  cmd->add_option("--isa", o.isa, "ISA level to compile for: native, sse41, avx2, avx512")->capture_default_str();
  cmd->add_option("--db", o.db, "the database (SQLite path or postgresql:// URL)")->capture_default_str();
  cmd->add_option("--repeat", o.repeat, "timed runs before and after (latency p50, p90)")
      ->check(positive())
      ->capture_default_str();
  cmd->add_flag("--json", o.json, "print one JSON object {model, device, tuning, before, after, speedup}; before and "
                                  "after are `tensorperf run --json` objects");
  cmd->callback([] { run_optimize(o); });
}

}  // namespace tensorperf::cli
