// What `run` and `optimize` both report about a loaded model: whole-run latency over repeats and
// where each workload's config came from (the coverage line).
#pragma once

#include <nlohmann/json.hpp>

#include "cli/model_source.h"

#include <map>
#include <string>

#include "runtime/executor.h"

namespace tensorperf::cli {

struct Latency {
  double p50_s = 0, p90_s = 0, min_s = 0;
};
// Times `repeat` whole runs (inputs as they are). Throws CommandFailed when a run fails.
Latency time_runs(runtime::Executor& ex, int repeat);

struct Coverage {
  int tuned = 0, closest = 0, defaults = 0;
  std::map<std::string, int> closest_devices;  // device key -> workloads configured from it
  // "14 of 18 workloads tuned on this device, 2 from x86_64-...-t1, 2 default"
  std::string line() const;
};
// Per distinct workload of the executor's kernel steps.
Coverage coverage_of(const runtime::Executor& ex);

// `tensorperf run ... --json` of `source` in a child process (its progress goes to our stderr), and
// its JSON. Used where this process must stay free of the run's thread pools (it forks measurement
// workers afterwards) or must not load the model's kernels. `what` names the run in errors.
struct ChildRun {
  int threads = 0;  // 0: run's default
  std::string isa = "native";
  std::string db;
  int repeat = 30;
};
nlohmann::json run_in_child(const ModelSource& source, const ChildRun& options, const std::string& what);

}  // namespace tensorperf::cli
