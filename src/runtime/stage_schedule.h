// A stage schedule: how the executor runs a model's operators with inter-operator parallelism, as
// IOS (MLSys'21) defines it. Stages run one after another, separated by a barrier; the groups of a
// stage run concurrently, each on its own threads (a group's kernels use `threads` threads), and the
// operators of a group run in order. Operators are named as the executor's steps are
// (Executor::steps()[i].name). A schedule is for one graph: `graph` is the fingerprint of the
// operator list it was made for, and loading it against another graph is an error.
//
// JSON (one file per model, device and batch):
//   {"format": 1, "model": "inception_v3", "batch": 1, "device": KEY, "threads": 2,
//    "strategy": "both", "graph": FINGERPRINT, "latency_ms": 12.3, "sequential_ms": 14.0,
//    "merges": [{"name": "merge:a+b", "ops": ["a", "b"]}],
//    "stages": [{"groups": [{"threads": 1, "ops": ["a", "b"]}, {"threads": 1, "ops": ["c"]}]}, ...],
//    "configs": {WORKLOAD: {"provider": "onednn", "config": {...}, "source": "tuned", "device": KEY}}}
// `merges` name operators that run as one kernel (graphsched::apply_merges rewrites the graph); the
// stages then name the merged operator, and the executor runs the steps named "<merged>/<part>"
// (the split of its output, when that is a copy) right after it in its group.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "ir/graph.h"
#include "runtime/config_choice.h"

namespace tensorperf::runtime {

struct StageGroup {
  int threads = 1;
  std::vector<std::string> ops;
};

struct Stage {
  std::vector<StageGroup> groups;
};

struct MergeSpec {
  std::string name;              // the merged operator's name
  std::vector<std::string> ops;  // the operators it replaces (same input, concatenated outputs)
};

struct StageSchedule {
  std::string model;
  int batch = 1;
  std::string device;
  int threads = 1;
  std::string strategy;
  std::string graph;  // graph_fingerprint of the graph it was made for (before merges)
  double latency_ms = 0;
  double sequential_ms = 0;
  std::vector<MergeSpec> merges;
  std::vector<Stage> stages;
  // The config of each workload the schedule was searched with (by workload key): the run uses them.
  std::map<std::string, ChosenConfig> configs;

  int num_ops() const;
};

inline constexpr int kStageScheduleFormat = 1;

nlohmann::json schedule_to_json(const StageSchedule& s);
// Errors name the first malformed field.
Result<StageSchedule> schedule_from_json(const nlohmann::json& j);
Result<StageSchedule> read_schedule_file(const std::string& path);
Status write_schedule_file(const std::string& path, const StageSchedule& s);

// The fingerprint of a graph (its nodes' names, ops, attributes and value types, in order): what a
// schedule is bound to. The same model at another batch has another fingerprint.
std::string graph_fingerprint(const ir::Graph& g);

// Checks `s` against a graph's operators: `names[i]` with predecessors `preds[i]` (indices). Every
// operator appears exactly once; an operator's predecessors run in an earlier stage or earlier in
// its own group; every group has at least one operator and one thread, and a stage's groups use at
// most `threads` threads together. The first violation is the error.
Status validate_schedule(const StageSchedule& s, const std::vector<std::string>& names,
                         const std::vector<std::vector<int>>& preds, int threads);

// The sequential schedule: every operator its own stage, in order, on all threads.
StageSchedule sequential_schedule(const std::vector<std::string>& names, int threads);

}  // namespace tensorperf::runtime
