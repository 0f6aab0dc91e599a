// Halide's autoschedulers as baselines: a workload's Halide algorithm (plain NCHW layout, no
// schedule) scheduled by Mullapudi2016, Li2018 or Adams2019 (the plugins shipped with libhalide14)
// for this machine, then JIT-compiled like any other kernel. Adams2019 runs with the weights built
// into its plugin and, unless HL_BEAM_SIZE is set in the environment, a beam of 1 (greedy): its
// default beam search took >20 GB and minutes on ResNet-18's 7x7 conv here. Where the greedy schedule
// does not compile (a Halide 14 fault, seen on a 3x3 conv at AVX2), it schedules again with beams of 4,
// then 8, unless the environment set HL_BEAM_SIZE.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "ir/workload.h"
#include "kernels/provider.h"

namespace tensorperf::kernels {

struct AutoscheduleOptions {
  // Last-level cache in bytes; 0: read from the system (sysconf), 32 MiB when it does not say.
  int64_t last_level_cache_bytes = 0;
  // Halide's "balance": the cost of a load relative to arithmetic (Halide's default is 40).
  float balance = 40.0f;
};

// "Mullapudi2016", "Li2018", "Adams2019".
const std::vector<std::string>& autoscheduler_names();

// Schedules and compiles `w` with the named autoscheduler for options.target and options.threads.
// NotFound for an unknown name or a missing plugin; Unsupported when Halide has no template for w.
Result<std::unique_ptr<Kernel>> compile_autoscheduled(const ir::Workload& w, const std::string& autoscheduler,
                                                      const CompileOptions& options,
                                                      const AutoscheduleOptions& auto_options = {});

}  // namespace tensorperf::kernels
