// The graph executor: runs a whole model (zoo or ONNX) on this machine with the best known config of
// each fused operator, as TVM's graph executor does after apply_history_best.
//
// load() plans once: it fuses the graph into workloads (ir::fuse_graph), chooses each workload's
// config (config_choice.h), compiles each distinct (workload, config) once and gives every node
// that runs it an instance of its own (kernels::Kernel::new_instance), folds batch norms into the
// preceding convolution's weights and bias, sums bias adds, turns reshape and flatten (and split or
// concat along an axis with one outer block) into views instead of copies, so a concat's producers
// write straight into their slice, keeps an activation in a kernel's own layout (oneDNN's blocked
// nChw16c) while the kernels on both sides agree on it, plans every activation into one arena by liveness
// (memory_plan.h), and runs once to pack the weights. run() then executes the steps in order with
// no allocation of its own.
//
// With a stage schedule (stage_schedule.h) the steps run by stages: a stage's groups at once on
// threads of a pool of the executor's, each kernel compiled for its group's thread count, and
// activations that live in the same stage never share memory.
//
// Not thread-safe: one run at a time per Executor.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "db/record_store.h"
#include "ir/graph.h"
#include "kernels/host_tensor.h"
#include "measure/timing.h"
#include "runtime/config_choice.h"
#include "runtime/stage_schedule.h"

namespace tensorperf::runtime {

// How Executor::time_stage treats the caches. A stage shorter than 1 ms is timed as the mean of
// the runs that fill 1 ms.
enum class StageTiming {
  kWarm,          // the runs back to back: the data stays in the caches between them
  // The steps' inputs and outputs evicted from the caches (measure::evict) before each timing:
  // only the first of the runs a short stage's timing averages is cold.
  kColdFirstRun,
  // Evicted before every run, off the clock: each run reads its inputs from memory and writes its
  // outputs to lines no cache holds, as in a whole run where they were written long before.
  kCold,
};

// Sets `t` up to time by `timing`: `evict` (of the data being timed) runs before each timing
// (kColdFirstRun) or before every run, off the clock (kCold); kWarm leaves `t` as it is.
void apply_stage_timing(StageTiming timing, std::function<void()> evict, measure::TimingOptions& t);

struct ExecutorOptions {
  ConfigPolicy policy = ConfigPolicy::kDatabase;
  db::RecordStore* store = nullptr;  // where kDatabase looks for configs; null: defaults only
  std::string device_key;            // whose records count as tuned here (measure::Device::key())
  std::string target = "host";       // compile target: "host" or a Halide target string
  int threads = 1;                   // threads of every kernel
  uint64_t seed = 0;                 // random data of constants that have no data (zoo weights)
  // kDatabase: time a stored non-oneDNN config against oneDNN's default at load and keep the faster.
  bool check_stored_configs = true;
  std::function<void(std::string_view)> progress;  // one line per phase or compile; may be empty
  // Run by stages: validated against the steps at load (an error names the first mismatch). Its
  // operators are the steps' names; merged operators must already be in the graph
  // (graphsched::apply_merges). Null: the steps run one after another on `threads` threads.
  const StageSchedule* schedule = nullptr;
  // false: every activation has memory of its own (no reuse by liveness), so that any steps may run
  // at once, as time_stage() does. Costs memory; for measuring schedules, not for serving.
  bool reuse_memory = true;
  // Configs decided already, by workload key: used as given (no database lookup, no timing), e.g.
  // what a stage schedule was searched with, so that its run uses the same kernels.
  std::map<std::string, ChosenConfig> fixed_configs;
};

// One step of a run: a fused operator (a kernel), a reference node, or a layout copy.
struct StepInfo {
  std::string name;      // the graph node it starts at
  std::string op;        // op kind of the anchor, e.g. "conv2d"; layout copies: "concat", ...
  std::string workload;  // workload key; empty for layout copies
  std::string provider;  // "halide", "onednn", "reference", "layout"
  ConfigSource source = ConfigSource::kDefault;
  std::string device;  // where the config was measured (tuned / closest); empty for defaults
  nlohmann::json config = nlohmann::json::object();
  int threads = 1;  // threads it runs with (in a stage schedule, its group's)
  // Kernels with a layout of their own: the layout of each input as it arrives and of the output as
  // it leaves, {"in": [...], "out": ...}, each the kernel's layout key where the tensor stays in it,
  // "plain->KEY" / "KEY->plain" where the kernel converts it (a reorder inside the step), "plain"
  // where the kernel has none for it. Null for kernels that read and write plain tensors only. Two
  // steps of one workload and config differ in cost when one converts: an element-wise kernel that
  // adopted its producer's layout and writes plain for a reader that takes nothing else.
  nlohmann::json layouts;
};

class Executor {
 public:
  // Errors: an op no provider supports or a dtype other than float32 at a kernel (Unsupported,
  // naming node and op); a graph that fails validation; a kernel that does not compile.
  static Result<std::unique_ptr<Executor>> load(const ir::Graph& g, const ExecutorOptions& options);
  ~Executor();

  size_t num_inputs() const { return inputs_.size(); }
  const std::string& input_name(size_t i) const { return input_names_.at(i); }
  // The graph input's memory: write the input here before run(); it persists across runs.
  kernels::HostTensor& input(size_t i) { return *inputs_.at(i); }
  size_t num_outputs() const { return outputs_.size(); }
  const std::string& output_name(size_t i) const { return output_names_.at(i); }
  // Valid after run() until the next run().
  const kernels::HostTensor& output(size_t i) const { return *outputs_.at(i); }

  Status run();
  // run() with each step timed: adds each step's seconds to step_seconds (resized to steps()). The
  // steps run one after another, a stage schedule's too (each kernel on its group's threads).
  Status run_timed(std::vector<double>& step_seconds);
  // With a stage schedule: the stages as they run, each group's steps (indices into steps(), in
  // order): the schedule's stages and those the executor added (a copy placed after its inputs).
  // Empty without a schedule.
  std::vector<std::vector<std::vector<int>>> stages() const;
  // run() with each stage of stages() timed (its groups at once, up to the barrier): adds each
  // stage's seconds to stage_seconds (resized to stages().size()). REQUIRES: a stage schedule.
  Status run_stages_timed(std::vector<double>& stage_seconds);

  const std::vector<StepInfo>& steps() const;
  // Each step's predecessors: the earlier steps that write memory it reads (indices into steps();
  // views and zero-copy concats resolved to the steps that write their bytes).
  const std::vector<std::vector<int>>& step_predecessors() const;
  // Median seconds of `repeat` runs of a stage: groups[k] (step indices, run in order) on
  // threads[k] threads, the groups at once. Kernels for a thread count other than the executor's
  // compile on first use (not timed; a warm-up run packs their weights). REQUIRES: loaded with
  // reuse_memory = false (else concurrent steps could share memory). `timing`: what the caches
  // hold when a run starts (StageTiming).
  Result<double> time_stage(const std::vector<std::vector<int>>& groups, const std::vector<int>& threads,
                            int repeat = 5, StageTiming timing = StageTiming::kWarm);
  int64_t arena_bytes() const;  // peak activation memory (the arena, graph inputs included)
  int64_t naive_bytes() const;  // every activation in a buffer of its own
  int compiled_kernels() const;  // distinct (workload, config) compiles
  int kernel_steps() const;      // steps that run a kernel (instances)
  // Activations kept in a kernel's own layout between kernels that agree on it (no conversions).
  int native_layout_values() const;
  // Kernels that accumulate onto a residual in that residual's own memory (no copy of it first).
  int in_place_accumulations() const;

  struct Impl;

 private:
  explicit Executor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  std::vector<kernels::HostTensor*> inputs_;
  std::vector<const kernels::HostTensor*> outputs_;
  std::vector<std::string> input_names_, output_names_;
};

}  // namespace tensorperf::runtime
