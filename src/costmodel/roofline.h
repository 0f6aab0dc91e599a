// A roofline estimate of a sample's latency from its own features: the workload's flops at the
// device's peak plus its tensors' bytes at the device's memory bandwidth, plus a microsecond of call
// overhead. A cost model that learns ln(seconds / estimate) instead of ln(seconds) learns how far
// a program is from its device's roofline; that ratio carries over to workloads larger than any it
// was trained on (a batch-8 VGG-16 conv), where trees fitted to ln(seconds) cannot go beyond the
// slowest latency they have seen.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "costmodel/sample.h"

namespace tensorperf::costmodel {

// Seconds, > 0. Reads the program vector's workload.* columns (features::workload_features: log2
// of 1 + flops, log2 of 1 + each of the last four dims of the inputs and output) and the device
// vector's peak_gflops and mem_bandwidth_gbs; a missing or non-positive peak counts as 1 GFLOP/s
// (1 GB/s). REQUIRES: `s` has this build's program and device widths.
double roofline_seconds(const Sample& s);
// What a model's ln target is taken relative to: roofline_seconds(s) when it fits ln(seconds /
// estimate), else 1 (ln(seconds)).
inline double target_unit(const Sample& s, bool roofline) { return roofline ? roofline_seconds(s) : 1.0; }

// How a model's saved payload names its target ("target"): the value for ln(seconds / estimate).
// A payload without it was written before the estimate was used, and fits ln(seconds).
inline constexpr const char* kRooflineTarget = "ln_seconds_over_roofline";
// Whether `payload` (of a `model` kind, for the message) fits ln(seconds / estimate): true, false
// for ln(seconds), InvalidArgument for a target this build does not know.
Result<bool> uses_roofline_target(const nlohmann::json& payload, const std::string& model);

}  // namespace tensorperf::costmodel
