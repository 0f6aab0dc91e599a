// features_bench: how fast tensorperf turns a (workload, config) into cost-model features, next to
// what measuring it would first cost (a JIT compile). Per model workload with a Halide template, N
// random valid configs: time to lower (kernels::lower), to extract the features of the lowered nest
// (features::loop_nest_features), both together (features::program_features), and for the first
// --compile of them the JIT compile (Provider::compile). Prints medians per config, configs/s and
// the compile/lower ratio; --json for machines.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "features/program_features.h"
#include "ir/models/zoo.h"
#include "ir/task_extraction.h"
#include "kernels/halide/halide_provider.h"
#include "kernels/loop_nest.h"
#include "measure/device.h"
#include "measure/sampler.h"

namespace {

using namespace tensorperf;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

struct Timings {
  std::vector<double> lower, extract, both, compile;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"features_bench: configs/s of lowering and feature extraction next to JIT compile time"};
  std::string model = "resnet18";
  int per_workload = 20, compile_per_workload = 2;
  uint64_t seed = 1;
  bool json = false;
  app.add_option("--model", model, "zoo model whose workloads are used")->capture_default_str();
  app.add_option("--configs", per_workload, "random valid configs per workload")->capture_default_str();
  app.add_option("--compile", compile_per_workload, "of those, how many are also JIT-compiled")->capture_default_str();
  app.add_option("--seed", seed, "config sampling seed")->capture_default_str();
  app.add_flag("--json", json, "print one JSON object instead of the table");
  CLI11_PARSE(app, argc, argv);

  auto graph = ir::build_model(model);
  if (!graph.ok()) {
    std::fprintf(stderr, "features_bench: %s\n", graph.status().message().c_str());
    return 1;
  }
  auto tasks = ir::extract_tasks(*graph);
  auto device = measure::detect_device({});
  if (!tasks.ok() || !device.ok()) {
    std::fprintf(stderr, "features_bench: %s\n", (!tasks.ok() ? tasks.status() : device.status()).message().c_str());
    return 1;
  }
  const kernels::Provider& halide = kernels::halide::halide_provider();
  (void)halide.warm_up(device->target);
  std::map<std::string, Timings> by_op;  // op name -> timings
  Timings all;
  int workloads = 0, failed = 0;
  for (const ir::Task& task : *tasks) {
    const ir::Workload& w = task.workload;
    if (!halide.supports(w)) continue;
    ++workloads;
    std::vector<kernels::Config> configs;
    for (const kernels::Config& c :
         measure::sample_configs(halide.space(w), "halide", measure::SamplerKind::kRandom, per_workload * 20, seed)) {
      if (halide.validate(w, c).ok()) configs.push_back(c);
      if (static_cast<int>(configs.size()) == per_workload) break;
    }
    Timings& t = by_op[std::string(ir::op_name(w.op))];
    for (size_t i = 0; i < configs.size(); ++i) {
      auto start = Clock::now();
      auto nest = kernels::lower(w, configs[i], device->target);
      const double lower_s = seconds_since(start);
      if (!nest.ok()) {
        ++failed;
        continue;
      }
      start = Clock::now();
      features::ProgramFeatures f = features::loop_nest_features(*nest);
      const double extract_s = seconds_since(start);
      start = Clock::now();
      auto both = features::program_features(w, configs[i], device->target);
      const double both_s = seconds_since(start);
      if (!both.ok() || f.leaves.empty()) ++failed;
      for (Timings* dst : {&t, &all}) {
        dst->lower.push_back(lower_s);
        dst->extract.push_back(extract_s);
        dst->both.push_back(both_s);
      }
      if (static_cast<int>(i) < compile_per_workload) {
        start = Clock::now();
        auto kernel = halide.compile(w, configs[i], kernels::CompileOptions{device->target, 1});
        const double compile_s = seconds_since(start);
        if (kernel.ok())
          for (Timings* dst : {&t, &all}) dst->compile.push_back(compile_s);
      }
    }
    if (!json)
      std::fprintf(stderr, "\r%d workloads, %zu configs", workloads, all.lower.size());
  }
  if (!json) std::fprintf(stderr, "\n");

  auto row = [](const Timings& t) {
    const double lower = median(t.lower), extract = median(t.extract), both = median(t.both), compile = median(t.compile);
    return nlohmann::json{{"configs", t.lower.size()},
                          {"lower_ms", lower * 1e3},
                          {"extract_ms", extract * 1e3},
                          {"features_ms", both * 1e3},
                          {"features_per_s", both > 0 ? 1.0 / both : 0.0},
                          {"extract_per_s", extract > 0 ? 1.0 / extract : 0.0},
                          {"compiled", t.compile.size()},
                          {"compile_ms", compile * 1e3},
                          {"compile_over_features", both > 0 ? compile / both : 0.0}};
  };
  nlohmann::json out{{"model", model}, {"device", device->key()}, {"failed", failed}, {"ops", nlohmann::json::object()}};
  for (const auto& [op, t] : by_op) out["ops"][op] = row(t);
  out["all"] = row(all);
  if (json) {
    std::puts(out.dump(2).c_str());
    return failed == 0 ? 0 : 1;
  }
  std::printf("features_bench: %s, %d workloads with a Halide template, %s, one thread (medians per config)\n\n",
              model.c_str(), workloads, device->key().c_str());
  std::printf("%-18s %8s %10s %11s %12s %13s %9s %11s %14s\n", "op", "configs", "lower ms", "extract ms",
              "features ms", "features/s", "compiled", "compile ms", "compile/feat.");
  auto print = [](const std::string& name, const nlohmann::json& r) {
    std::printf("%-18s %8d %10.2f %11.3f %12.2f %13.1f %9d %11.1f %13.0fx\n", name.c_str(), r["configs"].get<int>(),
                r["lower_ms"].get<double>(), r["extract_ms"].get<double>(), r["features_ms"].get<double>(),
                r["features_per_s"].get<double>(), r["compiled"].get<int>(), r["compile_ms"].get<double>(),
                r["compile_over_features"].get<double>());
  };
  for (const auto& [op, r] : out["ops"].items()) print(op, r);
  print("all", out["all"]);
  std::printf("\nfeatures = lower + extract (what a cost model needs per candidate); compile = Halide JIT to machine "
              "code (what measuring needs first). %d failures.\n",
              failed);
  return failed == 0 ? 0 : 1;
}
