// The error no cost model of these inputs can beat. Samples whose inputs are identical (workload,
// device, provider, program and device vectors: one config measured more than once on one device)
// but whose measured latencies differ cannot all be predicted right by any function of those
// inputs. Each such sample is "predicted" by the median of the other measurements of its inputs,
// the best a model that had seen them could say; the metrics of those predictions
// (costmodel/metrics.h) are the noise floor of a set of samples, to read a model's errors against.
#pragma once

#include <span>
#include <vector>

#include "costmodel/sample.h"

namespace tensorperf::costmodel {

struct NoiseFloor {
  std::vector<size_t> positions;   // positions in `subset` whose inputs were measured more than once
  std::vector<double> predicted;   // for each: the median of the other measurements of its inputs
};

// Groups are formed over all `samples` (the other measurements may lie outside `subset`: a split's
// training set); only the samples `subset` names are predicted. Samples without a measured
// latency are ignored.
NoiseFloor noise_floor(std::span<const Sample> samples, std::span<const size_t> subset);

}  // namespace tensorperf::costmodel
