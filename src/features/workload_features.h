// Features of a workload alone (op kind, shapes, attributes) and of a device key alone. The
// model-guided tuner's rows are workload features | device key features | the point's features
// (tune::SearchSpace); the program features (program_features.h) start with the workload's. The
// workload part carries shapes so that one model can learn across the workloads of an op kind; the
// device key part comes from the key alone, so records of devices never seen here count too.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/workload.h"

namespace tensorperf::features {

// Op kind, log2 FLOPs, the first two inputs' and the output's dims (4 each, innermost last,
// log2(1 + d), 0 past the rank), strides, pads (top+bottom, left+right), dilations, groups, the
// epilogue's length, then log2(1 + x) of the first two inputs' and the output's bytes, of FLOPs per
// byte of the three and of FLOPs per output element. The same length for every op kind.
std::vector<float> workload_features(const ir::Workload& w);
const std::vector<std::string>& workload_feature_names();
// Threads ("-tN") and the SIMD lanes of the ISA level named in a tensorperf device key (16 for
// avx512, 8 for avx2, 4 for sse41, 0 when the key names none).
std::vector<float> device_key_features(std::string_view device_key);
size_t task_feature_width();  // workload_features + device_key_features

}  // namespace tensorperf::features
