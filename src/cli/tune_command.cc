// `tensorperf tune`: search each workload's best config on this device, allocating a trial budget
// across a model's workloads (the task scheduler), with compiles running ahead of timing. Every
// measurement goes to the database the moment it exists; a second run resumes from it. Prints one
// line per batch, then a table per workload and the model's estimated latency before and after.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "costmodel/cost_model.h"
#include "costmodel/device_table.h"
#include "cli/exit.h"
#include "cli/model_source.h"
#include "cli/progress.h"
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

struct TuneCommandOptions {
  ModelSource source;
  int64_t trials = 1000;
  std::string tuner = "xgb";
  std::string time_budget;
  int threads = 0;
  std::vector<int> also_threads;
  std::string isa = "native";
  std::string provider = "all";
  std::string workload;
  std::string cost_model;
  int screen = 4;
  std::string db = "tensorperf.db";
  uint64_t seed = 0;
  bool json = false;
  int build_jobs = 0;
  int per_round = 16;
  bool seed_configs = true;
  bool transfer = true;
  int patience = 256;
  double slow_cutoff = 2;
  measure::MeasureOptions measure;
};

std::string ms(std::optional<double> s) { return s ? fmt::format("{:.3f}", *s * 1e3) : "-"; }

// "conv2d 1x64x56x56 w64x64x3x3 s1 +bias+relu" style label of a workload key, for progress lines.
std::string short_key(const std::string& key, size_t width = 70) {
  return key.size() <= width ? key : key.substr(0, width - 3) + "...";
}

struct Totals {
  double default_s = 0, onednn_s = 0, tuned_s = 0;
  bool default_complete = true, onednn_complete = true, tuned_complete = true;
};

Totals totals(const tune::TuneReport& rep) {
  Totals t;
  for (const auto& r : rep.tasks) {
    const double n = static_cast<double>(r.count);
    if (r.default_s) t.default_s += n * *r.default_s;
    else t.default_complete = false;
    if (r.onednn_s) t.onednn_s += n * *r.onednn_s;
    else t.onednn_complete = false;
    if (r.best_s) t.tuned_s += n * *r.best_s;
    else t.tuned_complete = false;
  }
  return t;
}

void print_summary(const tune::TuneReport& rep, const measure::Device& device, const std::string& model,
                   const TuneCommandOptions& o) {
  Table table({{"#", Align::kRight},
               {"op"},
               {"count", Align::kRight},
               {"default ms", Align::kRight},
               {"oneDNN ms", Align::kRight},
               {"tuned ms", Align::kRight},
               {"provider"},
               {"speedup", Align::kRight},
               {"trials", Align::kRight},
               {"new", Align::kRight},
               {"workload", Align::kLeft, 60}});
  for (size_t i = 0; i < rep.tasks.size(); ++i) {
    const auto& r = rep.tasks[i];
    std::string speedup = r.default_s && r.best_s ? fmt::format("{:.2f}x", *r.default_s / *r.best_s) : "-";
    table.add_row({std::to_string(i + 1), r.workload_key.substr(0, r.workload_key.find('|')), std::to_string(r.count),
                   ms(r.default_s), ms(r.onednn_s), ms(r.best_s), r.best_s ? r.best_provider : "-", speedup,
                   std::to_string(r.trials) + (r.converged ? "*" : ""), std::to_string(r.measured),
                   r.failure.empty() ? r.workload_key : r.workload_key + " (" + r.failure + ")"});
  }
  table.print();
  const Totals t = totals(rep);
  auto total = [](double s, bool complete) { return complete ? fmt::format("{:.3f} ms", s * 1e3) : std::string("-"); };
  std::printf("%s on %s, tuner %s: estimated latency (sum of count x latency) default %s, oneDNN %s, tuned %s",
              model.c_str(), device.key().c_str(), o.tuner.c_str(), total(t.default_s, t.default_complete).c_str(),
              total(t.onednn_s, t.onednn_complete).c_str(), total(t.tuned_s, t.tuned_complete).c_str());
  if (t.default_complete && t.tuned_complete && t.tuned_s > 0)
    std::printf(" (%.2fx faster than default)", t.default_s / t.tuned_s);
  std::printf("\n");
  std::printf(
      "measured %lld configs in %.1f s (%.2f configs/s), %lld errors, %lld timed once (--slow-cutoff), %lld trials "
      "already in the database; compile %.1f s (CPU), run %.1f s, tuners %.1f s, inputs and references %.1f s; "
      "stopped: %s%s\n",
      static_cast<long long>(rep.measured), rep.wall_s, rep.configs_per_s(), static_cast<long long>(rep.errors),
      static_cast<long long>(rep.timings_cut), static_cast<long long>(rep.known), rep.build_s, rep.run_s, rep.tuner_s,
      rep.reference_s,
      rep.stop == "trials" ? "trial budget reached"
      : rep.stop == "time" ? "time budget reached"
                           : "every workload converged",
      rep.tasks.empty() ? "" : " (* = converged)");
  if (!o.also_threads.empty())
    std::printf("also timed on the same compiles: %lld records at %s thread(s)\n",
                static_cast<long long>(rep.also_measured), fmt::format("{}", fmt::join(o.also_threads, ", ")).c_str());
}

nlohmann::json summary_json(const tune::TuneReport& rep, const measure::Device& device, const std::string& model,
                            const TuneCommandOptions& o) {
  auto opt = [](std::optional<double> v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  nlohmann::json tasks = nlohmann::json::array();
  for (const auto& r : rep.tasks)
    tasks.push_back({{"workload", r.workload_key},
                     {"count", r.count},
                     {"flops", r.flops},
                     {"default_s", opt(r.default_s)},
                     {"onednn_s", opt(r.onednn_s)},
                     {"tuned_s", opt(r.best_s)},
                     {"provider", r.best_s ? nlohmann::json(r.best_provider) : nlohmann::json(nullptr)},
                     {"config", r.best_s ? r.best_config : nlohmann::json(nullptr)},
                     {"trials", r.trials},
                     {"measured", r.measured},
                     {"screened_rounds", r.screened_rounds},
                     {"seeded_from_other_devices", r.seeded_from_other_devices},
                     {"sibling_offers", r.sibling_offers},
                     {"errors", r.errors},
                     {"converged", r.converged},
                     {"failure", r.failure}});
  const Totals t = totals(rep);
  auto total = [](double s, bool complete) { return complete ? nlohmann::json(s) : nlohmann::json(nullptr); };
  return {{"model", model},
          {"device", device.key()},
          {"tuner", o.tuner},
          {"trials_budget", o.trials},
          {"measured", rep.measured},
          {"also_measured", rep.also_measured},
          {"errors", rep.errors},
          {"timings_cut", rep.timings_cut},
          {"known", rep.known},
          {"stop", rep.stop},
          {"wall_s", rep.wall_s},
          {"build_s", rep.build_s},
          {"run_s", rep.run_s},
          {"tuner_s", rep.tuner_s},
          {"reference_s", rep.reference_s},
          {"configs_per_s", rep.configs_per_s()},
          {"estimated_s",
           {{"default", total(t.default_s, t.default_complete)},
            {"onednn", total(t.onednn_s, t.onednn_complete)},
            {"tuned", total(t.tuned_s, t.tuned_complete)}}},
          {"tasks", tasks}};
}

void run_tune(TuneCommandOptions& o) {
  // Every argument is checked before anything is opened or written.
  if (o.trials < 1) throw CommandFailed("--trials must be at least 1, got " + std::to_string(o.trials), kExitUsage);
  if (Status known = tune::check_tuner_name(o.tuner); !known.ok()) throw CommandFailed(known.message(), kExitUsage);
  double budget_s = 0;
  if (!o.time_budget.empty()) {
    auto b = parse_duration(o.time_budget);
    if (!b.ok()) throw CommandFailed(b.status().message(), kExitUsage);
    budget_s = *b;
  }
  std::vector<const kernels::Provider*> providers;
  if (o.provider == "all") providers = kernels::providers();
  else providers = {check(kernels::find_provider(o.provider))};

  std::vector<tune::TuneTask> tasks;
  std::string model_name;
  if (!o.source.model.empty() || !o.source.onnx.empty()) {
    ir::Graph graph = o.source.load();
    model_name = o.source.name();
    for (const ir::Task& t : check(ir::extract_tasks(graph))) tasks.push_back({t.workload, t.count});
    if (!o.workload.empty()) {
      auto it = std::find_if(tasks.begin(), tasks.end(), [&](const auto& t) { return t.workload.key() == o.workload; });
      if (it == tasks.end())
        throw CommandFailed("workload '" + o.workload + "' is not a task of " + model_name +
                                " (see `tensorperf tasks` for its keys)",
                            kExitUsage);
      tasks = {*it};
    }
  } else if (!o.workload.empty()) {
    auto w = ir::parse_workload_key(o.workload);
    if (!w.ok()) throw CommandFailed("--workload: " + w.status().message(), kExitUsage);
    tasks.push_back({*w, 1});
    model_name = "workload";
  } else {
    throw CommandFailed("give a model (--model NAME or --onnx FILE) or a workload (--workload KEY)", kExitUsage);
  }

  measure::DeviceOptions device_options;
  device_options.threads = o.threads > 0 ? o.threads : static_cast<int>(measure::pinned_cpus(1 << 16).size());
  device_options.isa = o.isa;
  // The device first (peaks are measured once, then cached): a bad --isa or --threads writes nothing.
  const measure::Device device = check(measure::detect_device(device_options));
  std::unique_ptr<db::RecordStore> store = check(db::open_store(o.db, db::OpenMode::kCreate));
  db::DbRecordSink sink(*store);

  tune::TuneOptions options;
  options.tuner = o.tuner;
  options.trials = o.trials;
  options.time_budget_s = budget_s;
  options.batch = o.per_round;
  options.seed_configs = o.seed_configs;
  options.transfer = o.transfer;
  if (!o.cost_model.empty()) {
    costmodel::DeviceTable trained_on;
    auto model = costmodel::load_cost_model(o.cost_model, {}, &trained_on);
    if (!model.ok()) throw CommandFailed("--cost-model: " + model.status().message(), exit_code_of(model.status()));
    options.screen_model =
        tune::cost_model_screen(std::shared_ptr<const costmodel::CostModel>(std::move(*model)), std::move(trained_on));
    options.screen = o.screen;
  }
  options.seed = o.seed;
  options.scheduler.patience = o.patience;
  options.scheduler.seed = o.seed;
  options.measure = o.measure;
  options.slow_cutoff = o.slow_cutoff;
  for (int t : o.also_threads) {
    if (t >= device.threads)
      throw CommandFailed(fmt::format("--also-threads {}: must be fewer than --threads ({}); the device's own count "
                                      "is timed anyway",
                                      t, device.threads),
                          kExitUsage);
    measure::DeviceOptions also = device_options;
    also.threads = t;
    options.measure.also_on.push_back(check(measure::detect_device(also)));
  }
  const measure::CpuPlan cpus = measure::plan_cpus(device.threads);
  options.measure.build_jobs =
      o.build_jobs > 0 ? o.build_jobs : static_cast<int>(cpus.timing.size() + cpus.build.size());
  std::fprintf(stderr,
               "tune: %zu workload(s) of %s on %s, tuner %s, budget %lld trials%s; timing on %zu CPU(s), up to %d "
               "compile(s) ahead (%zu on other CPUs, the rest paused while timing)\n",
               tasks.size(), model_name.c_str(), device.key().c_str(), o.tuner.c_str(), static_cast<long long>(o.trials),
               budget_s > 0 ? fmt::format(" or {:.0f} s", budget_s).c_str() : "", cpus.timing.size(),
               options.measure.build_jobs, cpus.build.size());

  auto report = tune::tune(tasks, providers, device, options, *store, sink, [&](const tune::TuneProgress& p) {
    std::fprintf(stderr, "[%5lld/%lld %s] task %zu/%zu trials %lld best %s ms | model est. %.3f ms | %s\n",
                 static_cast<long long>(p.trials), static_cast<long long>(p.trials_budget),
                 ProgressBar::format_duration(p.elapsed_s).c_str(), p.task + 1, p.task_count,
                 static_cast<long long>(p.task_trials), ms(p.task_best_s).c_str(), p.estimated_s * 1e3,
                 short_key(p.workload_key).c_str());
  });
  const auto rep = check(std::move(report));
  if (o.json) std::puts(summary_json(rep, device, model_name, o).dump(2).c_str());
  else print_summary(rep, device, model_name, o);
}

}  // namespace

void register_tune_command(CLI::App& app) {
  static TuneCommandOptions o;
  auto* cmd = app.add_subcommand(
      "tune", "search each workload's best config on this device; every measurement goes to the database (resumable)");
  o.source.add_options(cmd, "--graph-seed");
  cmd->add_option("--trials", o.trials,
                  "measurements for the whole model (with --workload: for that workload), those already in the "
                  "database included")
      ->capture_default_str();
  cmd->add_option("--tuner", o.tuner, "search over large spaces: " + tune::tuner_names())->capture_default_str();
  cmd->add_option("--time-budget", o.time_budget, "stop starting batches after this long, e.g. 90s, 30m, 2h");
  cmd->add_option("--threads", o.threads, "threads per kernel, pinned to the first CPUs (default: every CPU available)")
      ->check(positive());
  cmd->add_option("--isa", o.isa, "ISA level to compile for: native, sse41, avx2, avx512")->capture_default_str();
  cmd->add_option("--also-threads", o.also_threads,
                  "also time every compiled config with these fewer threads and store those records under their "
                  "own devices (one compile serves several devices: a dataset's; they are not trials)")
      ->check(positive());
  cmd->add_option("--provider", o.provider, "kernel providers: halide, onednn or all")->capture_default_str();
  cmd->add_option("--workload", o.workload, "tune this workload key alone");
  cmd->add_option("--db", o.db, "the database (SQLite path or postgresql:// URL)")->capture_default_str();
  cmd->add_option("--seed", o.seed, "seed of the tuners and the task scheduler")->capture_default_str()->check(uint64_value());
  cmd->add_flag("--json", o.json, "print the summary as one JSON object instead of a table");
  cmd->add_option("--build-jobs", o.build_jobs,
                  "compiles running ahead of timing (default: one per CPU; those on the timing CPUs pause while "
                  "a timing runs)")
      ->check(positive());
  cmd->add_option("--per-round", o.per_round, "measurements per round of one workload")
      ->check(positive())
      ->capture_default_str();
  cmd->add_flag("!--no-seed-configs", o.seed_configs, "do not measure the providers' hand-picked configs, nor other devices' best, first");
  cmd->add_flag("!--no-transfer", o.transfer, "do not start from related records in the database (the xgb model's data; other devices' best configs measured first)");
  cmd->add_option("--cost-model", o.cost_model,
                  "a trained cost model (`tensorperf eval --save FILE`) that screens the tuners' proposals before they "
                  "are compiled");
  cmd->add_option("--screen", o.screen, "with --cost-model: proposals asked per measurement, the fastest predicted kept")
      ->capture_default_str()
      ->check(positive());
  cmd->add_option("--early-stopping", o.patience,
                  "trials without improvement after which a workload stops (0: never)")
      ->capture_default_str();
  cmd->add_option("--repeat", o.measure.timing.repeat, "timings per config (the median is quoted)")
      ->check(positive())
      ->capture_default_str();
  cmd->add_option("--slow-cutoff", o.slow_cutoff,
                  "a config whose first timing is above this many times its workload's best so far keeps that one "
                  "timing: its other repeats are skipped (0: every config takes every repeat)")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            char* end = nullptr;
            const double x = std::strtod(v.c_str(), &end);
            if (end == v.c_str() || *end != '\0' || !(x == 0 || (x > 1 && std::isfinite(x))))
              return "must be 0 (off) or a number above 1, got '" + v + "'";
            return "";
          },
          "0 or > 1"))
      ->capture_default_str();
  cmd->add_option("--min-repeat-ms", o.measure.timing.min_repeat_ms, "each timing runs the kernel at least this long")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--build-timeout", o.measure.build_timeout_s, "seconds allowed to compile one config")
      ->check(positive())
      ->capture_default_str();
  cmd->add_option("--run-timeout", o.measure.run_timeout_s, "seconds allowed to check and time one config")
      ->check(positive())
      ->capture_default_str();
  cmd->callback([] { run_tune(o); });
}

}  // namespace tensorperf::cli
