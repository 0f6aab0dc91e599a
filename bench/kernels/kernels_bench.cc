// Per-workload kernel benchmark of a zoo model (ResNet-18 by default, batch 1): the Halide template's
// default schedule, the best of N random configs, each Halide autoscheduler, oneDNN (best of its
// small space) and the best known config: the best Halide record in the database for this device,
// or for the closest device that has one (db::best_configs). By default the database is a temporary
// store holding data/best_known/*.jsonl (records of `tensorperf tune`). Times are in-process
// medians of repeats (the measure layer does the isolated protocol); each kernel's output is checked
// once against the reference. oneDNN's best and the best known config are then timed again side by
// side (--side-by-side rounds, alternating): those medians are their columns and their ratio.
#include <time.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fmt/core.h>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <random>

#include "ir/models/zoo.h"
#include "ir/task_extraction.h"
#include "kernels/autoschedule.h"
#include "db/best_configs.h"
#include "db/importer.h"
#include "db/record_store.h"
#include "kernels/provider.h"
#include "measure/device.h"
#include "measure/record.h"

namespace tensorperf::bench {
namespace {

using kernels::CompileOptions;
using kernels::Config;
using kernels::HostTensor;
using kernels::Kernel;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The timing clock: wall time, or this process's CPU time (--clock cpu: for one thread on a shared,
// busy machine, where wall time mostly measures the other tenants).
bool g_cpu_clock = false;
double now_seconds() {
  if (!g_cpu_clock) return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// Median seconds per run: one warm-up, `number` grown until a timing lasts >= min_ms, `repeat` timings.
Result<double> time_kernel(Kernel& k, const std::vector<const HostTensor*>& in, HostTensor& out, double min_ms,
                           int repeat) {
  TP_RETURN_IF_ERROR(k.run(in, out));
  double t0 = now_seconds();
  TP_RETURN_IF_ERROR(k.run(in, out));
  double once = std::max(now_seconds() - t0, 1e-7);
  int number = std::max(1, static_cast<int>(std::ceil(min_ms * 1e-3 / once)));
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) {
    double t = now_seconds();
    for (int i = 0; i < number; ++i) TP_RETURN_IF_ERROR(k.run(in, out));
    times.push_back((now_seconds() - t) / number);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

struct Measured {
  std::optional<double> seconds;  // empty: failed (see error)
  std::string error;
  double compile_s = 0, run_s = 0;
};

struct Context {
  const ir::Workload* w;
  std::vector<HostTensor> inputs;
  HostTensor expected;
  CompileOptions options;
  double min_ms;
  int repeat;
};

Measured measure(Context& ctx, const std::function<Result<std::unique_ptr<Kernel>>()>& compile) {
  Measured m;
  auto t0 = Clock::now();
  auto kernel = compile();
  m.compile_s = seconds_since(t0);
  if (!kernel.ok()) {
    m.error = kernel.status().message();
    return m;
  }
  std::vector<const HostTensor*> in;
  for (const HostTensor& t : ctx.inputs) in.push_back(&t);
  HostTensor out(ctx.w->output);
  auto t1 = Clock::now();
  auto s = time_kernel(*kernel.value(), in, out, ctx.min_ms, ctx.repeat);
  m.run_s = seconds_since(t1);
  if (!s.ok()) {
    m.error = s.status().message();
    return m;
  }
  double err = kernels::max_scaled_error(out, ctx.expected);
  if (!(err <= 1.0)) {
    m.error = fmt::format("wrong output (scaled error {:.3g})", err);
    return m;
  }
  m.seconds = s.value();
  return m;
}

// oneDNN's best config against the best known Halide config, timed side by side: `rounds` rounds,
// each timing both (time_kernel), the order alternating, so that a change of the machine's speed
// during the workload hits both; the medians of the rounds. Each kernel was checked in measure().
Result<std::pair<double, double>> interleaved(Context& ctx, const std::function<Result<std::unique_ptr<Kernel>>()>& a,
                                              const std::function<Result<std::unique_ptr<Kernel>>()>& b, int rounds) {
  TP_ASSIGN_OR_RETURN(std::unique_ptr<Kernel> ka, a());
  TP_ASSIGN_OR_RETURN(std::unique_ptr<Kernel> kb, b());
  std::vector<const HostTensor*> in;
  for (const HostTensor& t : ctx.inputs) in.push_back(&t);
  HostTensor out(ctx.w->output);
  std::vector<double> ta, tb;
  for (int r = 0; r < rounds; ++r)
    for (int i = 0; i < 2; ++i) {
      const bool first = (r + i) % 2 == 0;
      TP_ASSIGN_OR_RETURN(double t, time_kernel(first ? *ka : *kb, in, out, ctx.min_ms, ctx.repeat));
      (first ? ta : tb).push_back(t);
    }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  return std::make_pair(median(ta), median(tb));
}

std::string short_name(const ir::Workload& w) {
  const auto& x = w.inputs[0].shape;
  if (w.op == ir::OpKind::kConv2d) {
    const auto& k = w.inputs[1].shape;
    return fmt::format("conv {}x{}x{}->{} k{} s{}{}", x[1], x[2], x[3], k[0], k[2], w.attrs.get_ints("strides", {1, 1})[0],
                       w.epilogue.empty() ? "" : " +" + std::to_string(w.epilogue.size()));
  }
  std::string s(ir::op_name(w.op));
  s += " " + ir::shape_to_string(x);
  return s;
}

// The best error-free record of `provider` for `w` on `device` or the closest device that has one.
struct Known {
  Config config;
  std::string device;  // where it was measured
  std::string match;   // "exact", "model", "target-key"
};
std::optional<Known> best_known(db::RecordStore& store, const ir::Workload& w, const std::string& device,
                                const std::string& target, const std::string& provider) {
  // The target lets a device the store has never seen fall back by model and target key.
  auto best = db::best_configs(store, w.key(), device, 64, target);
  if (!best.ok()) return std::nullopt;
  for (const db::StoredRecord& s : best->records) {
    auto r = measure::record_from_line(s.line);
    if (r.ok() && r->provider == provider)
      return Known{Config{provider, r->config}, r->device_key, std::string(db::match_name(best->match))};
  }
  return std::nullopt;
}

// A temporary SQLite store with every record file of data/best_known.
Result<std::unique_ptr<db::RecordStore>> shipped_best_known(const std::string& path) {
  std::filesystem::remove(path);
  TP_ASSIGN_OR_RETURN(auto store, db::open_store(path, db::OpenMode::kCreate));
  const std::filesystem::path dir = std::filesystem::path(TENSORPERF_SOURCE_DIR) / "data" / "best_known";
  if (std::filesystem::exists(dir))
    for (const auto& f : std::filesystem::directory_iterator(dir)) {
      if (f.path().extension() != ".jsonl") continue;
      TP_RETURN_IF_ERROR(db::import_file(*store, f.path().string(), {}, {}).status());
    }
  return store;
}

double gflops(const ir::Workload& w, const Measured& m) { return m.seconds ? w.flops() / *m.seconds * 1e-9 : 0.0; }

int run(int argc, char** argv) {
  CLI::App app{"Kernel benchmark: Halide schedules vs autoschedulers vs oneDNN per workload of a zoo model"};
  std::string model = "resnet18", isa = "native", db_url, ops_filter = "conv2d";
  int threads = 2, random_configs = 8, repeat = 7, side_by_side = 5;
  double min_ms = 20;
  bool json = false, autoschedule = true, verbose = false;
  app.add_option("--model", model, "zoo model (batch 1)");
  app.add_option("--isa", isa, "ISA level to compile for: native, avx512, avx2, sse41");
  app.add_option("--threads", threads, "threads per kernel");
  app.add_option("--random", random_configs, "random Halide configs per workload");
  app.add_option("--repeat", repeat, "timings per kernel (median quoted)");
  app.add_option("--min-ms", min_ms, "minimum duration of one timing in ms");
  app.add_option("--side-by-side", side_by_side,
                 "rounds timing oneDNN's best and the best known Halide config alternately; their medians are the "
                 "two columns and the ratio (0: each timed once, right after its search)");
  app.add_option("--ops", ops_filter, "comma-separated op kinds to run, or all");
  std::string name_filter;
  app.add_option("--filter", name_filter, "only workloads whose short name (as printed) contains this text");
  app.add_option("--db", db_url,
                 "database of best known configs (default: a temporary store of data/best_known/*.jsonl)");
  app.add_flag("!--no-autoschedule", autoschedule, "skip Halide's autoschedulers");
  std::string clock = "wall";
  app.add_option("--clock", clock, "wall, or cpu (process CPU time; needs --threads 1)")->check(CLI::IsMember({"wall", "cpu"}));
  app.add_flag("--json", json, "machine-readable output");
  app.add_flag("--verbose", verbose, "print each random config before compiling it");
  CLI11_PARSE(app, argc, argv);
  g_cpu_clock = clock == "cpu";
  if (g_cpu_clock && threads != 1) {
    std::cerr << "kernels_bench: --clock cpu sums all threads' CPU time: use it with --threads 1\n";
    return 1;
  }

  measure::DeviceOptions device_options;
  device_options.threads = threads;
  device_options.isa = isa;
  auto detected = measure::detect_device(device_options);
  if (!detected.ok()) {
    std::cerr << "kernels_bench: " << detected.status().message() << "\n";
    return 1;
  }
  const std::string device = detected->key();
  const std::string target = detected->target;
  const std::string temp_db =
      (std::filesystem::temp_directory_path() / ("tp-kernels-bench-" + std::to_string(::getpid()) + ".db")).string();
  auto store = db_url.empty() ? shipped_best_known(temp_db) : db::open_store(db_url, db::OpenMode::kRead);
  if (!store.ok()) {
    std::cerr << "kernels_bench: " << store.status().message() << "\n";
    return 1;
  }
  auto graph = ir::build_model(model);
  if (!graph.ok()) {
    std::cerr << "kernels_bench: " << graph.status().message() << "\n";
    return 1;
  }
  auto tasks = ir::extract_tasks(graph.value());
  if (!tasks.ok()) {
    std::cerr << "kernels_bench: " << tasks.status().message() << "\n";
    return 1;
  }
  const kernels::Provider& halide = *kernels::find_provider("halide").value();
  const kernels::Provider& onednn = *kernels::find_provider("onednn").value();
  CompileOptions options{target, threads};

  nlohmann::json rows = nlohmann::json::array();
  double random_compile_s = 0, random_run_s = 0, random_wall_s = 0;
  int random_count = 0, random_errors = 0;
  std::vector<double> ratios_known, ratios_random, ratios_best_of_all;
  std::mt19937_64 rng(42);
  for (const ir::Task& task : tasks.value()) {
    const ir::Workload& w = task.workload;
    std::string op(ir::op_name(w.op));
    if (ops_filter != "all" && ("," + ops_filter + ",").find("," + op + ",") == std::string::npos) continue;
    if (!halide.supports(w)) continue;
    if (!name_filter.empty() && short_name(w).find(name_filter) == std::string::npos) continue;
    Context ctx{&w, {}, HostTensor(w.output), options, min_ms, repeat};
    for (const auto& t : kernels::kernel_input_types(w)) {
      ctx.inputs.emplace_back(t);
      ctx.inputs.back().fill_random(rng);
    }
    std::vector<const HostTensor*> in;
    for (const HostTensor& t : ctx.inputs) in.push_back(&t);
    if (Status st = kernels::run_reference(w, in, ctx.expected); !st.ok()) {
      std::cerr << "kernels_bench: reference failed for " << w.key() << ": " << st.message() << "\n";
      return 1;
    }
    std::cerr << "[" << short_name(w) << "]" << std::flush;
    nlohmann::json row = {{"workload", w.key()},
                          {"name", short_name(w)},
                          {"count", task.count},
                          {"gflop", w.flops() * 1e-9},
                          {"space_size", halide.space(w).size()}};
    auto record = [&](const std::string& column, const Measured& m, const Config* c = nullptr) {
      row[column] = m.seconds ? nlohmann::json{{"ms", *m.seconds * 1e3}, {"gflops", gflops(w, m)}}
                              : nlohmann::json{{"error", m.error}};
      if (c != nullptr && m.seconds) row[column]["config"] = c->knobs;
    };
    record("default", measure(ctx, [&] { return halide.compile(w, halide.default_config(w), options); }));

    // Best of N random configs: the profiling loop's throughput (compile vs run) comes from here.
    Measured best_random;
    Config best_random_config;
    kernels::ConfigSpace space = halide.space(w);
    auto t_random = Clock::now();
    for (int i = 0; i < random_configs; ++i) {
      Config c{"halide", nlohmann::json::object()};
      for (const kernels::Knob& k : space.knobs) c.knobs[k.name] = k.values[rng() % k.values.size()];
      if (verbose) std::cerr << "\n  " << c.knobs.dump() << std::flush;
      Measured m = measure(ctx, [&] { return halide.compile(w, c, options); });
      random_compile_s += m.compile_s;
      random_run_s += m.run_s;
      ++random_count;
      if (!m.seconds) ++random_errors;
      if (verbose && !m.seconds) std::cerr << "\n  error: " << m.error.substr(0, 300) << std::flush;
      if (m.seconds && (!best_random.seconds || *m.seconds < *best_random.seconds)) {
        best_random = m;
        best_random_config = c;
      }
      std::cerr << "." << std::flush;
    }
    random_wall_s += seconds_since(t_random);
    if (random_configs > 0) {
      if (!best_random.seconds) best_random.error = "no valid random config";
      record("best_random", best_random, &best_random_config);
    }

    if (autoschedule)
      for (const std::string& name : kernels::autoscheduler_names()) {
        record(name, measure(ctx, [&] { return kernels::compile_autoscheduled(w, name, options); }));
        std::cerr << "a" << std::flush;
      }

    Measured best_onednn;
    Config best_onednn_config;
    if (onednn.supports(w)) {
      std::vector<Config> configs = onednn.space(w).enumerate("onednn");
      for (const Config& c : configs) {
        Measured m = measure(ctx, [&] { return onednn.compile(w, c, options); });
        if (m.seconds && (!best_onednn.seconds || *m.seconds < *best_onednn.seconds)) {
          best_onednn = m;
          best_onednn_config = c;
        }
      }
      if (!best_onednn.seconds) best_onednn.error = "no oneDNN config ran";
      record("onednn", best_onednn, &best_onednn_config);
    }

    Measured known;
    Config known_config;
    if (auto k = best_known(**store, w, device, target, "halide")) {
      known_config = k->config;
      known = measure(ctx, [&] { return halide.compile(w, known_config, options); });
      row["best_known_from"] = {{"device", k->device}, {"match", k->match}};
    } else {
      known.error = "no best known config";
    }
    record("best_known", known, &known_config);
    if (known.seconds && best_onednn.seconds && side_by_side > 0) {
      auto both = interleaved(
          ctx, [&] { return onednn.compile(w, best_onednn_config, options); },
          [&] { return halide.compile(w, known_config, options); }, side_by_side);
      if (both.ok()) {
        best_onednn.seconds = both->first;
        known.seconds = both->second;
        record("onednn", best_onednn, &best_onednn_config);
        record("best_known", known, &known_config);
        row["side_by_side_rounds"] = side_by_side;
      }
    }
    if (known.seconds && best_onednn.seconds) {
      row["best_known_vs_onednn"] = *best_onednn.seconds / *known.seconds;
      ratios_known.push_back(*best_onednn.seconds / *known.seconds);
      ratios_best_of_all.push_back(std::max(1.0, *best_onednn.seconds / *known.seconds));
    }
    if (best_random.seconds && best_onednn.seconds) ratios_random.push_back(*best_onednn.seconds / *best_random.seconds);
    rows.push_back(row);
    std::cerr << "\n";
  }

  auto geomean = [](const std::vector<double>& v) {
    if (v.empty()) return 0.0;
    double s = 0;
    for (double x : v) s += std::log(x);
    return std::exp(s / static_cast<double>(v.size()));
  };
  nlohmann::json summary = {
      {"model", model},
      {"device", device},
      {"threads", threads},
      {"target", target},
      {"clock", clock},
      {"geomean_best_known_vs_onednn", geomean(ratios_known)},
      {"geomean_best_random_vs_onednn", geomean(ratios_random)},
      {"geomean_best_of_all_vs_onednn", geomean(ratios_best_of_all)},
      {"profiling", {{"configs", random_count},
                     {"errors", random_errors},
                     {"configs_per_second", random_wall_s > 0 ? random_count / random_wall_s : 0.0},
                     {"compile_seconds", random_compile_s},
                     {"run_seconds", random_run_s}}},
      {"workloads", rows}};
  store->reset();
  if (db_url.empty()) std::filesystem::remove(temp_db);
  if (json) {
    std::cout << summary.dump(2) << "\n";
    return 0;
  }
  std::vector<std::string> columns = {"default"};
  if (random_configs > 0) columns.push_back("best_random");
  if (autoschedule) columns.insert(columns.end(), kernels::autoscheduler_names().begin(), kernels::autoscheduler_names().end());
  columns.insert(columns.end(), {"onednn", "best_known"});
  fmt::print("{} on {} (target {}, {} clock): ms (GFLOP/s)\n", model, device, target, clock);
  fmt::print("{:<30} {:>3} {:>8}", "workload", "n", "space");
  for (const auto& c : columns) fmt::print(" {:>15}", c);
  fmt::print(" {:>8}\n", "bk/onednn");
  for (const auto& row : rows) {
    fmt::print("{:<30} {:>3} {:>8.2g}", row["name"].get<std::string>(), row["count"].get<int64_t>(),
               row["space_size"].get<double>());
    for (const auto& c : columns) {
      if (!row.contains(c)) fmt::print(" {:>15}", "-");
      else if (row[c].contains("ms")) fmt::print(" {:>15}", fmt::format("{:.3f} ({:.0f})", row[c]["ms"].get<double>(), row[c]["gflops"].get<double>()));
      else fmt::print(" {:>15}", "error");
    }
    if (row.contains("best_known_vs_onednn")) fmt::print(" {:>8.2f}x", row["best_known_vs_onednn"].get<double>());
    fmt::print("\n");
  }
  fmt::print("geomean throughput vs oneDNN: best known Halide {:.2f}x, best of all providers {:.2f}x, best of {} random "
             "{:.2f}x\n",
             geomean(ratios_known), geomean(ratios_best_of_all), random_configs, geomean(ratios_random));
  std::map<std::string, int> sources;
  for (const auto& row : rows)
    if (row.contains("best_known_from"))
      ++sources[row["best_known_from"]["device"].get<std::string>() + " (" +
                row["best_known_from"]["match"].get<std::string>() + ")"];
  for (const auto& [from, n] : sources) fmt::print("best known configs from {}: {} workload(s)\n", from, n);
  fmt::print("profiling: {} random configs ({} errors), {:.2f} configs/s, compile {:.1f} s vs run {:.1f} s\n",
             random_count, random_errors, summary["profiling"]["configs_per_second"].get<double>(), random_compile_s,
             random_run_s);
  for (const auto& row : rows)
    for (const auto& c : columns)
      if (row.contains(c) && row[c].contains("error"))
        fmt::print("  {} {}: {}\n", row["name"].get<std::string>(), c, row[c]["error"].get<std::string>().substr(0, 160));
  return 0;
}

}  // namespace
}  // namespace tensorperf::bench

int main(int argc, char** argv) { return tensorperf::bench::run(argc, argv); }
