// Hand-picked points of the Halide conv2d / dense spaces that a short search tries to find each
// workload's best known config: the blocked (NCHWc) register-tiled schedules of the template.
#pragma once

#include <vector>

#include "ir/workload.h"
#include "kernels/provider.h"

namespace tensorperf::bench {

// Empty for op kinds without hand-picked candidates. `vector_width`: SIMD lanes of the target.
std::vector<kernels::Config> candidate_configs(const ir::Workload& w, int vector_width);

}  // namespace tensorperf::bench
