// The isolated builder and runner: compiles one config of a workload and times it under the
// measurement protocol, in a fresh forked worker process per config, so a crash, hang, failed
// assertion or out-of-bounds access in a generated kernel becomes an error Record and the caller
// goes on. Errors follow AutoTVM's numbering (record.h):
//   1 instantiation  the provider rejected a knob value (compile() returned InvalidArgument)
//   2 compile_host   compile() failed otherwise, threw, or the worker died while compiling
//   4 runtime        run() failed or threw, or the worker died while running
//   5 wrong_answer   the first run's output differs from kernels::run_reference
//   6 build_timeout  compiling took longer than build_timeout_s
//   7 run_timeout    checking and timing took longer than run_timeout_s
//   8 unknown        the worker exited without reporting
//
// Fork safety (REQUIRES): the calling process must not have started a thread that a worker would
// need: Halide's thread pool (any run of a parallel Halide kernel), OpenMP's (any parallel region,
// oneDNN's kernels among them). Compiling without running (Provider::warm_up, compile()) starts
// none. Only the calling thread is copied into a worker.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "base/status.h"
#include "ir/workload.h"
#include "kernels/host_tensor.h"
#include "kernels/provider.h"
#include "measure/device.h"
#include "measure/record.h"
#include "measure/timing.h"

namespace tensorperf {
struct WorkerOutcome;  // base/worker.h
}  // namespace tensorperf

namespace tensorperf::measure {

struct MeasureOptions {
  TimingOptions timing;
  double build_timeout_s = 120;      // compile() of one config
  double run_timeout_s = 60;         // the checked first run plus all timings
  double reference_timeout_s = 600;  // the reference output, computed once per workload
  bool check_output = true;          // compare the first run with kernels::run_reference
  double atol = 1e-3, rtol = 1e-3;   // tolerance of that comparison (kernels::max_scaled_error)
  uint64_t seed = 1;                 // random inputs: the same seed and workload give the same data
  // measure_batch: how many candidates compile at once, ahead of the one being timed (see CpuPlan
  // for where). REQUIRES: >= 1.
  int build_jobs = 1;
  // measure_batch: right after a candidate is timed on the runner's device, the same compiled kernel
  // is timed again as it runs on each of these devices (the same target, fewer threads: the 1-thread
  // device of a 2-thread one), so one compile serves several devices. A Halide kernel takes another
  // thread count without compiling (Kernel::instance_with_threads); other kernels are compiled again
  // for it, which for oneDNN costs milliseconds. Nothing is timed there after a failed candidate.
  std::vector<Device> also_on;
};

// One config to measure, with the provider that compiles it.
struct Candidate {
  const kernels::Provider* provider = nullptr;
  kernels::Config config;
};

// Where measure_batch runs compiles and timings. Timing runs alone on the device's first `threads`
// CPUs. Compiles fill the other CPUs first (`build`: they run on while a timing does); compiles
// beyond those run on the timing CPUs and are stopped (SIGSTOP) for as long as a timing runs, so
// that every CPU compiles between timings and none disturbs one.
struct CpuPlan {
  std::vector<int> timing, build;
  bool exclusive = false;  // build is empty: timing uses every CPU
};
CpuPlan plan_cpus(int timing_threads);

// Measures configs of one workload on one device. Inputs (random, non-zero) are made once here and
// the reference output once, in a worker of its own; each measure() call forks a worker that
// inherits them, pins itself to the device's first `threads` CPUs, compiles and times.
class WorkloadRunner {
 public:
  // Errors: the reference kernel fails, crashes or times out (the message says which).
  static Result<std::unique_ptr<WorkloadRunner>> create(const ir::Workload& workload, const Device& device,
                                                        const MeasureOptions& options);

  // Never fails: every failure is a Record with an error code. Not thread-safe.
  Record measure(const kernels::Provider& provider, const kernels::Config& config) const;

  // Measures every candidate under the same protocol, each in a worker of its own, with compiles
  // running ahead of timing (options.build_jobs, plan_cpus). Candidates are timed one at a time, in
  // order. on_record(i, record) is called for candidate i as soon as its record exists, so not in
  // order: an instantiation error, for one, arrives at once. Before the first fork it warms up each
  // provider's compiler for the device's target in this process (Provider::warm_up), so workers
  // inherit it. Errors: the first non-OK status on_record returns (the remaining workers are killed
  // and no more records are made).
  // With options.also_on, on_also(i, j, record) gets candidate i's record on also_on[j], after
  // on_record(i, ...). Errors also: an also_on device of another target or with more threads than
  // the runner's (InvalidArgument).
  // stop_above_s(i), asked when candidate i's timing starts (so after the records of the candidates
  // timed before it), is its TimingOptions::stop_above_s on the runner's device (0 or absent: every
  // repeat). Its also_on and native-layout timings take every repeat.
  Status measure_batch(const std::vector<Candidate>& candidates, const std::function<Status(size_t, Record)>& on_record,
                       const std::function<Status(size_t, size_t, Record)>& on_also = {},
                       const std::function<double(size_t)>& stop_above_s = {}) const;

 private:
  WorkloadRunner(const ir::Workload& workload, const Device& device, const MeasureOptions& options);
  // A record for `c` from how its worker ended (the stage protocol of measure()).
  Record record_from(const Candidate& c, const WorkerOutcome& out) const;
  // The record of `c` on `device` from the worker's "built" message and the message that ended its
  // timing there (null: the worker ended before it came; its ending says why).
  Record make_record(const Candidate& c, const Device& device, const nlohmann::json* built,
                     const nlohmann::json* done, const WorkerOutcome& out) const;
  // The worker's stages: compile (sends "built"), then check and time (sends "done").
  std::unique_ptr<kernels::Kernel> compile_stage(const Candidate& c, const std::function<void(const nlohmann::json&)>& send) const;
  // Checks and times `kernel`; sends `message` completed with "costs" or "error".
  void run_stage(kernels::Kernel& kernel, const std::function<void(const nlohmann::json&)>& send,
                 nlohmann::json message = {{"stage", "done"}}, double stop_above_s = 0) const;
  // Before the main timing: times `kernel`'s code on each also_on device, one "also" message each.
  void also_stage(const Candidate& c, const kernels::Kernel& kernel,
                  const std::function<void(const nlohmann::json&)>& send) const;

  ir::Workload workload_;
  Device device_;
  MeasureOptions options_;
  std::vector<kernels::HostTensor> inputs_;
  kernels::HostTensor reference_;  // valid when options_.check_output
};

}  // namespace tensorperf::measure
