// Lowering a Halide program for its features, in a forked worker. Halide 14's simplifier crashes
// (SIGSEGV in Simplify::simplify_let) on a few valid schedules once the buffer sizes are pinned, as
// lowering for features pins them and compiling for measurement does not; e.g. a 14x14 conv2d with
// compute_at "row", tile_y 2, strip 4 and tail "guard". In a worker such a crash costs that program
// an error, not the caller's process (an `eval` over thousands of records, a tuning run's screen).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "features/program_features.h"
#include "ir/workload.h"
#include "kernels/provider.h"

namespace tensorperf::features {

struct LoweringJob {
  const ir::Workload* workload;
  const kernels::Config* config;
  const std::string* target;
};

// loop_nest_features(kernels::lower(...)) of each job, lowered in forked workers: one worker lowers
// job after job (so the fork and the child's first-touch costs are paid once per worker, not per
// program) until one crashes, which costs that job an error; the next worker starts after it.
// Errors: what kernels::lower reports; kInternal for a crash, kTimeout past `timeout_s` for one job.
std::vector<Result<ProgramFeatures>> isolated_loop_nest_features(std::span<const LoweringJob> jobs,
                                                                 double timeout_s = 300);

}  // namespace tensorperf::features
