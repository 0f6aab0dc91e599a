// Numeric features for learned models over configs (the model-guided tuner's input): one row per
// (workload, device, point) = workload features | device features | the point's features
// (SearchSpace::features: knob values and schedule features). The workload
// part carries shapes so that one model can learn across the workloads of an op kind; the device
// part comes from the device key alone, so records of devices never seen here count too.
#pragma once

#include <string_view>
#include <vector>

#include "ir/workload.h"
#include "tune/search_space.h"

namespace tensorperf::tune {

// Op kind, log2 FLOPs, the first two inputs' and the output's dims (4 each, innermost last,
// log2(1 + d), 0 past the rank), strides, pads (top+bottom, left+right), dilations, groups and the
// epilogue's length. The same length for every op kind.
std::vector<float> workload_features(const ir::Workload& w);
// Threads ("-tN") and the SIMD lanes of the ISA level named in a tensorperf device key (16 for
// avx512, 8 for avx2, 4 for sse41, 0 when the key names none).
std::vector<float> device_key_features(std::string_view device_key);
size_t task_feature_width();  // workload_features + device_key_features

}  // namespace tensorperf::tune
