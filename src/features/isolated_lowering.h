// Lowering a Halide program for its features, in a forked worker. Halide 14's simplifier crashes
// (SIGSEGV in Simplify::simplify_let) on a few valid schedules once the buffer sizes are pinned, as
// lowering for features pins them and compiling for measurement does not; e.g. a 14x14 conv2d with
// compute_at "row", tile_y 2, strip 4 and tail "guard". In a worker such a crash costs that program
// an error, not the caller's process (an `eval` over thousands of records, a tuning run's screen).
#pragma once

#include <string>

#include "base/status.h"
#include "features/program_features.h"
#include "ir/workload.h"
#include "kernels/provider.h"

namespace tensorperf::features {

// loop_nest_features(kernels::lower(w, config, target)), lowered in a forked worker. Errors: what
// kernels::lower reports; kInternal when the worker crashed, kTimeout past `timeout_s`.
Result<ProgramFeatures> isolated_loop_nest_features(const ir::Workload& w, const kernels::Config& config,
                                                    const std::string& target, double timeout_s = 300);

}  // namespace tensorperf::features
