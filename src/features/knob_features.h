// A config's knobs as numbers, for samples without a loop nest (oneDNN) and beside the loop nest's
// features for Halide: the provider, then each knob of the provider's space in the space's order
// (integers as log2(1 + v), strings as 1 + their index among the knob's values), zeros past the last;
// then "chained_io": 1 for the program as a graph chains it, its activation input and output in its
// native layout (a record's native_costs, measure/record.h), 0 for the program run alone on plain
// tensors (its costs). A knob of how the program is run rather than of its schedule.
#pragma once

#include <string>
#include <vector>

#include "ir/workload.h"
#include "kernels/provider.h"

namespace tensorperf::features {

constexpr size_t kKnobSlots = 16;

const std::vector<std::string>& knob_feature_names();
// Errors: an unknown provider (NotFound).
Result<std::vector<float>> knob_features(const ir::Workload& w, const kernels::Config& config, bool chained = false);

}  // namespace tensorperf::features
