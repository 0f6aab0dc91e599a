// A roofline estimate of a sample's latency from its own features: the workload's flops at the
// device's peak plus its tensors' bytes at the device's memory bandwidth, plus a microsecond of call
// overhead. A cost model that learns ln(seconds / estimate) instead of ln(seconds) learns how far
// a program is from its device's roofline; that ratio carries over to workloads larger than any it
// was trained on (a batch-8 VGG-16 conv), where trees fitted to ln(seconds) cannot go beyond the
// slowest latency they have seen.
#pragma once

#include "costmodel/sample.h"

namespace tensorperf::costmodel {

// Seconds, > 0. Reads the program vector's workload.* columns (features::workload_features: log2
// of 1 + flops, log2 of 1 + each of the last four dims of the inputs and output) and the device
// vector's peak_gflops and mem_bandwidth_gbs; a missing or non-positive peak counts as 1 GFLOP/s
// (1 GB/s). REQUIRES: `s` has this build's program and device widths.
double roofline_seconds(const Sample& s);

}  // namespace tensorperf::costmodel
