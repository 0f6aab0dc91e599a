// `tensorperf run`: runs a whole model on this machine with the best known config of each workload
// (tuned here, else the closest device's, else the faster default) and reports its latency, the
// time of each operator, peak activation memory and where the configs came from.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/exit.h"
#include "cli/model_source.h"
#include "cli/model_timing.h"
#include "cli/table.h"
#include "cli/validators.h"
#include "db/record_store.h"
#include "measure/device.h"
#include "graphsched/scheduler.h"
#include "runtime/executor.h"
#include "runtime/omp_wait_policy.h"
#include "runtime/tensor_file.h"

namespace tensorperf::cli {

namespace {

struct RunOptions {
  ModelSource source;
  int threads = 0;
  std::string isa = "native";
  std::string db = "tensorperf.db";
  const CLI::Option* db_option = nullptr;
  std::string configs = "db";
  std::string schedule;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  int repeat = 20;
  uint64_t seed = 0;
  bool json = false;
};

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// "NAME=FILE" or "FILE" (the only input / output).
std::pair<std::string, std::string> split_binding(const std::string& s) {
  const size_t eq = s.find('=');
  if (eq == std::string::npos || s.find('/') < eq) return {"", s};
  return {s.substr(0, eq), s.substr(eq + 1)};
}

size_t find_named(const std::string& what, const std::string& name, size_t count,
                  const std::function<const std::string&(size_t)>& name_at) {
  if (name.empty()) {
    if (count != 1)
      throw CommandFailed("the model has " + std::to_string(count) + " " + what + "s; name one (--" + what +
                              " NAME=FILE)",
                          kExitUsage);
    return 0;
  }
  std::string known;
  for (size_t i = 0; i < count; ++i) {
    if (name_at(i) == name) return i;
    known += (known.empty() ? "" : ", ") + name_at(i);
  }
  throw CommandFailed("the model has no " + what + " '" + name + "' (" + what + "s: " + known + ")", kExitUsage);
}

std::string mib(int64_t bytes) { return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20)); }

void run_model(const RunOptions& o) {
  const runtime::ConfigPolicy policy = check(runtime::parse_policy(o.configs));
  // Outputs are checked before anything runs, so a bad one costs nothing.
  for (const std::string& b : o.outputs) {
    const std::string file = split_binding(b).second;
    if (file.size() < 4 || (file.substr(file.size() - 4) != ".npy" && file.substr(file.size() - 3) != ".pb"))
      throw CommandFailed("--output " + file + ": use a .npy or .pb file", kExitUsage);
  }
  ir::Graph g = o.source.load();
  // Input files are read and checked against the graph before anything compiles.
  std::vector<std::string> input_names;
  for (ir::ValueId v : g.inputs()) input_names.push_back(g.value(v).name);
  std::vector<std::optional<ir::TensorData>> given(input_names.size());
  for (const std::string& b : o.inputs) {
    auto [name, file] = split_binding(b);
    const size_t i = find_named("input", name, input_names.size(), [&](size_t k) -> const std::string& { return input_names[k]; });
    ir::TensorData t = check(runtime::read_tensor_file(file));
    const ir::TensorType& want = g.type(g.inputs()[i]);
    if (!(t.type == want))
      throw CommandFailed("input '" + input_names[i] + "': " + file + " holds " + t.type.to_string() +
                          "; the model takes " + want.to_string());
    given[i] = std::move(t);
  }
  std::optional<runtime::StageSchedule> schedule;
  if (!o.schedule.empty()) schedule = check(runtime::read_schedule_file(o.schedule));
  measure::DeviceOptions device_options;
  device_options.threads = o.threads > 0       ? o.threads
                           : schedule.has_value() ? schedule->threads
                                                  : static_cast<int>(measure::pinned_cpus(1 << 16).size());
  device_options.isa = o.isa;
  const measure::Device device = check(measure::detect_device(device_options));

  std::unique_ptr<db::RecordStore> store;
  std::string db_note;
  if (policy == runtime::ConfigPolicy::kDatabase) {
    const bool given = o.db_option != nullptr && o.db_option->count() > 0;
    const bool is_url = o.db.rfind("postgres", 0) == 0;
    if (given || is_url || std::filesystem::exists(o.db)) {
      store = check(db::open_store(o.db, db::OpenMode::kRead));
    } else {
      db_note = "no database at " + o.db + ": every workload runs a default config";
    }
  }
  if (!db_note.empty() && !o.json) std::fprintf(stderr, "note: %s\n", db_note.c_str());

  runtime::ExecutorOptions eo;
  eo.policy = policy;
  eo.store = store.get();
  eo.device_key = device.key();
  eo.target = device.target;
  eo.threads = device.threads;
  eo.seed = o.seed;
  eo.progress = [&](std::string_view line) {
    if (!o.json) std::fprintf(stderr, "%.*s\n", static_cast<int>(line.size()), line.data());
  };
  std::unique_ptr<runtime::Executor> ex =
      schedule ? check(graphsched::load_scheduled(g, *schedule, eo)) : check(runtime::Executor::load(g, eo));

  std::mt19937_64 rng(o.seed ^ 0x5eedULL);
  for (size_t i = 0; i < ex->num_inputs(); ++i) {
    if (given[i]) std::copy(given[i]->bytes.begin(), given[i]->bytes.end(), ex->input(i).bytes());
    else ex->input(i).fill_random(rng);
  }

  // Latency: whole runs; then per-step times from separately timed runs.
  const Latency latency = time_runs(*ex, o.repeat);
  const int timed_runs = std::max(3, std::min(o.repeat, 10));
  std::vector<std::vector<double>> per_step(ex->steps().size());
  for (int r = 0; r < timed_runs; ++r) {
    std::vector<double> s;
    check(ex->run_timed(s));
    for (size_t i = 0; i < s.size(); ++i) per_step[i].push_back(s[i]);
  }
  // The outputs of the last run are the outputs of the given inputs (every run computes the same).
  for (const std::string& b : o.outputs) {
    auto [name, file] = split_binding(b);
    const size_t i =
        find_named("output", name, ex->num_outputs(), [&](size_t k) -> const std::string& { return ex->output_name(k); });
    const kernels::HostTensor& t = ex->output(i);
    ir::TensorData d;
    d.name = ex->output_name(i);
    d.type = t.type();
    d.bytes.assign(t.bytes(), t.bytes() + t.type().num_bytes());
    check(runtime::write_tensor_file(file, d));
  }

  const double p50 = latency.p50_s, p90 = latency.p90_s, min = latency.min_s;
  std::vector<double> step_ms;
  double sum_steps = 0;
  for (auto& v : per_step) {
    step_ms.push_back(median_of(v) * 1e3);
    sum_steps += step_ms.back();
  }
  const double overhead_ms = p50 * 1e3 - sum_steps;
  const Coverage cov = coverage_of(*ex);
  const int tuned = cov.tuned, closest = cov.closest, defaults = cov.defaults;
  const std::string coverage =
      policy == runtime::ConfigPolicy::kReference
          ? fmt::format("{} nodes on the reference kernels (nothing fused or tuned)", ex->kernel_steps())
          : cov.line();

  if (o.json) {
    nlohmann::json ops = nlohmann::json::array();
    for (size_t i = 0; i < ex->steps().size(); ++i) {
      const runtime::StepInfo& s = ex->steps()[i];
      ops.push_back({{"name", s.name},
                     {"op", s.op},
                     {"workload", s.workload},
                     {"provider", s.provider},
                     {"source", s.workload.empty() ? "layout" : std::string(runtime::source_name(s.source))},
                     {"device", s.device},
                     {"config", s.config},
                     {"ms", step_ms[i]}});
      if (!s.layouts.is_null()) ops.back()["layouts"] = s.layouts;
    }
    nlohmann::json out{{"model", o.source.name()},
                       {"batch", g.batch()},
                       {"threads", device.threads},
                       {"device", device.key()},
                       {"configs", o.configs},
                       {"omp_wait_policy", runtime::omp_wait_policy_name()},
                       {"latency_ms", {{"p50", p50 * 1e3}, {"p90", p90 * 1e3}, {"min", min * 1e3}}},
                       {"kernel_sum_ms", sum_steps},
                       {"overhead_ms", overhead_ms},
                       {"peak_activation_bytes", ex->arena_bytes()},
                       {"naive_activation_bytes", ex->naive_bytes()},
                       {"compiled_kernels", ex->compiled_kernels()},
                       {"native_layout_values", ex->native_layout_values()},
                       {"in_place_accumulations", ex->in_place_accumulations()},
                       {"coverage", {{"tuned", tuned}, {"closest_device", closest}, {"default", defaults}}},
                       {"ops", ops}};
    std::puts(out.dump(2).c_str());
    return;
  }
  // Per-operator table: one row per workload (count = its nodes), layout copies by op.
  struct Row {
    std::string op, provider, source, key;
    int count = 0;
    double ms = 0;
  };
  std::vector<Row> rows;
  std::map<std::string, size_t> row_of;
  for (size_t i = 0; i < ex->steps().size(); ++i) {
    const runtime::StepInfo& s = ex->steps()[i];
    const std::string id = s.workload.empty() ? "layout:" + s.op : s.workload;
    auto it = row_of.find(id);
    if (it == row_of.end()) {
      std::string source = s.workload.empty() ? "-" : std::string(runtime::source_name(s.source));
      if (s.source == runtime::ConfigSource::kClosestDevice) source += " " + s.device;
      it = row_of.emplace(id, rows.size()).first;
      rows.push_back({s.op, s.provider, source, s.workload.empty() ? "(copy)" : s.workload, 0, 0});
    }
    rows[it->second].count += 1;
    rows[it->second].ms += step_ms[i];
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.ms > b.ms; });
  Table table({{"op"}, {"count", Align::kRight}, {"provider"}, {"config from"}, {"ms", Align::kRight},
               {"share", Align::kRight}, {"workload", Align::kLeft, 70}});
  for (const Row& r : rows)
    table.add_row({r.op, std::to_string(r.count), r.provider, r.source, fmt::format("{:.3f}", r.ms),
                   fmt::format("{:.1f}%", sum_steps > 0 ? 100 * r.ms / sum_steps : 0.0), r.key});
  table.add_footer({"total", std::to_string(ex->steps().size()), "", "", fmt::format("{:.3f}", sum_steps), "100.0%",
                    fmt::format("{} kernels compiled for {} kernel steps", ex->compiled_kernels(), ex->kernel_steps())});
  table.print();
  std::printf("\n%s at batch %lld on %s, %d thread%s, configs: %s\n", o.source.name().c_str(),
              static_cast<long long>(g.batch()), device.key().c_str(), device.threads, device.threads == 1 ? "" : "s",
              o.configs.c_str());
  std::printf("latency   p50 %.3f ms   p90 %.3f ms   min %.3f ms   (%d runs)\n", p50 * 1e3, p90 * 1e3, min * 1e3, o.repeat);
  std::printf("executor overhead  %.3f ms (%.1f%% of p50: run time minus the sum of its steps)\n", overhead_ms,
              p50 > 0 ? 100 * overhead_ms / (p50 * 1e3) : 0.0);
  std::printf("peak activation memory  %s (naive: %s, %.0f%%)\n", mib(ex->arena_bytes()).c_str(),
              mib(ex->naive_bytes()).c_str(),
              ex->naive_bytes() > 0 ? 100.0 * static_cast<double>(ex->arena_bytes()) / static_cast<double>(ex->naive_bytes()) : 0.0);
  std::printf(
      "layouts  %d activations stay in their kernels' own layout (no conversion between them); "
      "%d residual adds accumulate in place\n",
      ex->native_layout_values(), ex->in_place_accumulations());
  std::printf("coverage  %s\n", coverage.c_str());
}

}  // namespace

void register_run_command(CLI::App& app) {
  static RunOptions o;
  auto* cmd = app.add_subcommand("run", "run a whole model with the best known configs and report its latency");
  o.source.add_options(cmd, "--graph-seed");
  cmd->add_option("--threads", o.threads, "threads per kernel (default: every CPU available)")->check(positive());
  cmd->add_option("--isa", o.isa, "ISA level to compile for: native, sse41, avx2, avx512")->capture_default_str();
  o.db_option = cmd->add_option("--db", o.db,
                                "the database of tuned configs (SQLite path or postgresql:// URL); when the default "
                                "file is absent, every workload runs a default config")
                    ->capture_default_str();
  cmd->add_option("--configs", o.configs,
                  "db (tuned, else the closest device's, else the faster of oneDNN's and Halide's defaults), onednn, "
                  "halide (defaults only) or reference (plain C++ kernels, unfused: for checking)")
      ->capture_default_str();
  cmd->add_option("--schedule", o.schedule,
                  "run with a stage schedule from `tensorperf schedule -o FILE` (concurrent and merged operators); "
                  "its thread count is the default --threads. The command then runs with libgomp's active wait "
                  "policy (OMP_WAIT_POLICY=active GOMP_SPINCOUNT=300000, unless either is set; "
                  "TENSORPERF_OMP_WAIT_POLICY=default keeps libgomp's own): docs/runtime.md, Threads");
  cmd->add_option("--input", o.inputs, "FILE or NAME=FILE (.npy or ONNX TensorProto .pb); default: seeded random data");
  cmd->add_option("--output", o.outputs, "FILE or NAME=FILE: write an output (.npy or .pb) after the runs");
  cmd->add_option("--repeat", o.repeat, "timed runs (latency p50, p90 and min over them)")
      ->check(positive())
      ->capture_default_str();
  cmd->add_option("--seed", o.seed, "seed of random inputs and of weights that have no data (zoo models)")
      ->capture_default_str()
      ->check(uint64_value());
  cmd->add_flag("--json", o.json,
                "print one JSON object {model, batch, threads, device, omp_wait_policy, latency_ms: {p50, p90, min}, "
                "peak_activation_bytes, coverage: {tuned, closest_device, default}, ops: [{name, op, workload, provider, "
                "source, device, config, ms[, layouts: the kernel's input and output layouts where it has its own, "
                "KEY->plain where it converts inside]}]}");
  cmd->callback([] { run_model(o); });
}

}  // namespace tensorperf::cli
