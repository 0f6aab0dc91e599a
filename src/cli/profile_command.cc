// `tensorperf profile`: measure sampled configs of every workload of a model on this device, each
// compiled and timed in an isolated worker, and write every record (errors included) as a JSON line
// the moment it is measured (and into the database with --db). Re-running skips what --out or the
// database already holds for this device, so an interrupted profile resumes. Prints a summary per
// workload and the profiling throughput. With --configs-of, it measures the configs a run ran
// instead (the kernels a model runs, timed alone on the host of the day).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "db/db_record_sink.h"
#include "cli/exit.h"
#include "cli/model_source.h"
#include "cli/progress.h"
#include "cli/table.h"
#include "cli/validators.h"
#include "db/record_store.h"
#include "ir/task_extraction.h"
#include "kernels/provider.h"
#include "measure/device.h"
#include "measure/profiler.h"
#include "measure/record_sink.h"

namespace tensorperf::cli {
namespace {

struct ProfileCommandOptions {
  ModelSource source;
  int configs_per_task = 8;
  std::string sampler = "random";
  uint64_t sample_seed = 0;
  int threads = 0;  // 0: every CPU this process may use
  std::string isa = "native";
  std::string provider = "all";
  std::string out = "records.jsonl";
  std::string db;
  std::string configs_of;  // a `tensorperf run --json` output: measure only the configs it ran
  bool json = false;
  measure::MeasureOptions measure;
};

// The configs each kernel of a run ran (`tensorperf run --json`: its ops' workload, provider and
// config), by workload key. Layout copies (no workload) are not kernels of a task.
std::map<std::string, std::vector<kernels::Config>> configs_of_run(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw CommandFailed("--configs-of: cannot read " + path, kExitUsage);
  nlohmann::json run = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (run.is_discarded() || !run.is_object() || !run.contains("ops") || !run["ops"].is_array())
    throw CommandFailed("--configs-of: " + path + " is not the output of `tensorperf run --json` (no \"ops\" list)",
                        kExitUsage);
  std::map<std::string, std::vector<kernels::Config>> by_workload;
  for (const nlohmann::json& op : run["ops"]) {
    if (!op.is_object() || !op.contains("workload") || !op["workload"].is_string() ||
        op["workload"].get<std::string>().empty())
      continue;
    if (!op.contains("provider") || !op["provider"].is_string() || !op.contains("config") || !op["config"].is_object())
      throw CommandFailed("--configs-of: an op of " + path + " lacks its provider or config", kExitUsage);
    kernels::Config c{op["provider"].get<std::string>(), op["config"]};
    auto& configs = by_workload[op["workload"].get<std::string>()];
    if (std::none_of(configs.begin(), configs.end(), [&](const kernels::Config& x) {
          return x.provider == c.provider && x.knobs == c.knobs;
        }))
      configs.push_back(std::move(c));
  }
  if (by_workload.empty()) throw CommandFailed("--configs-of: " + path + " names no kernel", kExitUsage);
  return by_workload;
}

std::vector<const kernels::Provider*> select_providers(const std::string& name) {
  if (name == "all") return kernels::providers();
  return {check(kernels::find_provider(name))};
}

std::string op_of(const std::string& workload_key) { return workload_key.substr(0, workload_key.find('|')); }

std::string ms(double s) { return s > 0 ? fmt::format("{:.3f}", s * 1e3) : "-"; }

void print_summary(const measure::ProfileReport& rep, const measure::Device& device, const std::string& model) {
  Table table({{"#", Align::kRight},
               {"op"},
               {"provider"},
               {"count", Align::kRight},
               {"configs", Align::kRight},
               {"new", Align::kRight},
               {"errors", Align::kRight},
               {"best ms", Align::kRight},
               {"median ms", Align::kRight},
               {"worst ms", Align::kRight},
               {"best GFLOP/s", Align::kRight},
               {"best chained ms", Align::kRight},
               {"workload", Align::kLeft, 60}});
  for (size_t i = 0; i < rep.tasks.size(); ++i) {
    const auto& t = rep.tasks[i];
    table.add_row({std::to_string(i + 1), op_of(t.workload_key), t.provider, std::to_string(t.count),
                   std::to_string(t.configs), std::to_string(t.measured), std::to_string(t.errors), ms(t.best_s),
                   ms(t.median_s), ms(t.worst_s), t.best_s > 0 ? fmt::format("{:.1f}", t.best_gflops()) : "-",
                   ms(t.best_chained_s), t.workload_key});
  }
  table.add_footer({"", "total", "", "", std::to_string(rep.measured + rep.skipped), std::to_string(rep.measured),
                    std::to_string(rep.errors), "", "", "", "", "", fmt::format("{} on {}", model, device.key())});
  table.print();
  if (std::any_of(rep.tasks.begin(), rep.tasks.end(), [](const measure::TaskSummary& t) { return t.best_chained_s > 0; }))
    std::printf("best chained ms: the kernel with its input and output already in its native layout, as a chain of "
                "such kernels runs it in a model (no layout conversions)\n");
  for (const auto& key : rep.unsupported) std::printf("not measured, no selected provider supports: %s\n", key.c_str());
  std::printf(
      "measured %lld configs in %.1f s (%.2f configs/s), %lld already recorded; compile %.1f s, run %.1f s, "
      "worker overhead %.2f s (%.1f ms per config), inputs and references %.1f s\n",
      static_cast<long long>(rep.measured), rep.wall_s, rep.configs_per_s(), static_cast<long long>(rep.skipped),
      rep.build_s, rep.run_s, rep.overhead_s,
      rep.measured > 0 ? 1e3 * rep.overhead_s / static_cast<double>(rep.measured) : 0.0, rep.reference_s);
}

nlohmann::json summary_json(const measure::ProfileReport& rep, const measure::Device& device,
                            const std::string& model) {
  nlohmann::json tasks = nlohmann::json::array();
  for (const auto& t : rep.tasks)
    tasks.push_back({{"workload", t.workload_key},
                     {"op", op_of(t.workload_key)},
                     {"provider", t.provider},
                     {"count", t.count},
                     {"flops", t.flops},
                     {"configs", t.configs},
                     {"measured", t.measured},
                     {"errors", t.errors},
                     {"best_s", t.best_s},
                     {"median_s", t.median_s},
                     {"worst_s", t.worst_s},
                     {"best_gflops", t.best_gflops()},
                     {"best_chained_s", t.best_chained_s}});
  return {{"model", model},
          {"device", measure::device_to_json(device)},
          {"tasks", tasks},
          {"unsupported", rep.unsupported},
          {"measured", rep.measured},
          {"skipped", rep.skipped},
          {"errors", rep.errors},
          {"wall_s", rep.wall_s},
          {"build_s", rep.build_s},
          {"run_s", rep.run_s},
          {"overhead_s", rep.overhead_s},
          {"reference_s", rep.reference_s},
          {"configs_per_s", rep.configs_per_s()}};
}

void run_profile(const ProfileCommandOptions& o) {
  if (o.out.empty() && o.db.empty())
    throw CommandFailed("nowhere to write records: give --out FILE or --db URL", kExitUsage);
  measure::ProfileOptions options;
  options.configs_per_task = o.configs_per_task;
  options.sampler = check(measure::parse_sampler(o.sampler));
  options.seed = o.sample_seed;
  options.measure = o.measure;
  if (!o.configs_of.empty()) options.only_configs = configs_of_run(o.configs_of);
  const auto providers = select_providers(o.provider);

  ir::Graph graph = o.source.load();
  const auto tasks = check(ir::extract_tasks(graph));

  measure::DeviceOptions device_options;
  device_options.threads = o.threads > 0 ? o.threads : static_cast<int>(measure::pinned_cpus(1 << 16).size());
  device_options.isa = o.isa;
  std::fprintf(stderr, "profile: detecting the device (peaks are measured once, then cached)\n");
  const measure::Device device = check(measure::detect_device(device_options));
  std::fprintf(stderr, "profile: device %s, target %s, %.1f GFLOP/s peak, %.1f GB/s triad\n", device.key().c_str(),
               device.target.c_str(), device.peak_gflops, device.mem_bandwidth_gbs);

  // Resume: every point already in --out or in the database for this device is skipped.
  measure::MeasuredIndex index;
  measure::FanoutSink sinks;
  std::unique_ptr<measure::JsonLinesSink> file_sink;
  if (!o.out.empty()) {
    auto existing = check(measure::read_record_file(o.out));
    for (const auto& r : existing.records) index.add(r);
    if (existing.bad_lines > 0)
      std::fprintf(stderr, "profile: skipped %d malformed line(s) of %s\n", existing.bad_lines, o.out.c_str());
    file_sink = check(measure::JsonLinesSink::open(o.out));
    sinks.add(file_sink.get());
  }
  std::unique_ptr<db::RecordStore> store;
  std::unique_ptr<db::DbRecordSink> db_sink;
  std::unique_ptr<db::StoreClaims> claims;
  if (!o.db.empty()) {
    store = check(db::open_store(o.db, db::OpenMode::kCreate));
    check(db::index_store_records(*store, device.key(), index));
    db_sink = std::make_unique<db::DbRecordSink>(*store);
    sinks.add(db_sink.get());
    // Profiles sharing the database divide the configs between them.
    claims = std::make_unique<db::StoreClaims>(*store, options.measure.build_timeout_s + options.measure.run_timeout_s + 60);
    options.claims = claims.get();
    options.refresh = [&](measure::MeasuredIndex& idx) {
      return db::index_store_records(*store, device.key(), idx).status();
    };
  }
  if (options.only_configs.empty())
    std::fprintf(stderr, "profile: %zu tasks of %s, %zu provider(s), up to %d configs each; %zu records known\n",
                 tasks.size(), o.source.name().c_str(), providers.size(), o.configs_per_task, index.size());
  else
    std::fprintf(stderr, "profile: %zu tasks of %s, the configs %s ran for %zu of them; %zu records known\n",
                 tasks.size(), o.source.name().c_str(), o.configs_of.c_str(), options.only_configs.size(),
                 index.size());

  ProgressBar bar;
  auto report =
      measure::profile(tasks, providers, device, options, index, sinks, [&](const measure::ProfileProgress& p) {
        bar.update(p.configs_done, p.configs_total,
                   fmt::format("task {}/{} {} {} config {}/{}", p.task_index + 1, p.task_count, p.provider,
                               op_of(p.workload_key), p.config_index, p.config_count));
      });
  bar.finish();
  const auto rep = check(std::move(report));
  if (o.json) {
    std::puts(summary_json(rep, device, o.source.name()).dump(2).c_str());
  } else {
    print_summary(rep, device, o.source.name());
  }
}

}  // namespace

void register_profile_command(CLI::App& app) {
  static ProfileCommandOptions o;
  auto* cmd = app.add_subcommand(
      "profile",
      "measure sampled configs of every workload of a model on this device (resumable; records as JSON lines)");
  o.source.add_options(cmd);
  cmd->add_option("--configs-per-task", o.configs_per_task,
                  "configs per workload and provider, the provider's default config included")
      ->check(positive())
      ->capture_default_str();
  cmd->add_option("--configs-of", o.configs_of,
                  "measure only the configs a run ran (a `tensorperf run --json` output: each op's workload, provider "
                  "and config), in place of the default and the sample: the kernels a model runs, timed alone")
      ->excludes("--configs-per-task");
  cmd->add_option("--sampler", o.sampler, "random (seeded, distinct) or grid (even walk over the space)")
      ->check(CLI::IsMember({"random", "grid"}))
      ->capture_default_str();
  cmd->add_option("--sample-seed", o.sample_seed, "seed of the random sampler")->capture_default_str()->check(uint64_value());
  cmd->add_option("--threads", o.threads, "threads per kernel, pinned to the first CPUs (default: every CPU available)")
      ->check(positive());
  cmd->add_option("--isa", o.isa,
                  "ISA level to compile for: native, sse41, avx2, avx512 (another level is another device)")
      ->capture_default_str();
  cmd->add_option("--provider", o.provider, "kernel provider: halide, onednn or all")->capture_default_str();
  cmd->add_option("--out", o.out, "JSON-lines record file, appended to and read back to resume (\"\" for none)")
      ->capture_default_str();
  cmd->add_option("--db", o.db,
                  "also store records in this database (SQLite path or postgresql:// URL) and resume from it");
  cmd->add_flag("--json", o.json, "print the summary as one JSON object instead of a table");
  cmd->add_option("--repeat", o.measure.timing.repeat, "timings per config (the median is quoted)")
      ->check(positive())
      ->capture_default_str();
  cmd->add_option("--min-repeat-ms", o.measure.timing.min_repeat_ms, "each timing runs the kernel at least this long")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_flag("--flush-cache", o.measure.timing.flush_cache, "flush the caches before each timing");
  cmd->add_option("--build-timeout", o.measure.build_timeout_s, "seconds allowed to compile one config")
      ->check(positive())
      ->capture_default_str();
  cmd->add_option("--run-timeout", o.measure.run_timeout_s, "seconds allowed to check and time one config")
      ->check(positive())
      ->capture_default_str();
  cmd->callback([] { run_profile(o); });
}

}  // namespace tensorperf::cli
