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
// Fork safety (REQUIRES): the calling process must not have started Halide's JIT or thread pool,
// OpenMP or oneDNN; the worker starts them itself. Only the calling thread is copied into a worker.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "base/status.h"
#include "ir/workload.h"
#include "kernels/host_tensor.h"
#include "kernels/provider.h"
#include "measure/device.h"
#include "measure/record.h"
#include "measure/timing.h"

namespace tensorperf::measure {

struct MeasureOptions {
  TimingOptions timing;
  double build_timeout_s = 120;      // compile() of one config
  double run_timeout_s = 60;         // the checked first run plus all timings
  double reference_timeout_s = 600;  // the reference output, computed once per workload
  bool check_output = true;          // compare the first run with kernels::run_reference
  double atol = 1e-3, rtol = 1e-3;   // tolerance of that comparison (kernels::max_scaled_error)
  uint64_t seed = 1;                 // random inputs: the same seed and workload give the same data
};

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

 private:
  WorkloadRunner(const ir::Workload& workload, const Device& device, const MeasureOptions& options);

  ir::Workload workload_;
  Device device_;
  MeasureOptions options_;
  std::vector<kernels::HostTensor> inputs_;
  kernels::HostTensor reference_;  // valid when options_.check_output
};

}  // namespace tensorperf::measure
