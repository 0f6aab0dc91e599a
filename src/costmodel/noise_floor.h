// How well the measurements predict themselves: the noise a cost model's error is to be read
// against. Samples whose inputs are identical (workload, device, provider, program and device
// vectors: one config measured more than once on one device) but whose measured latencies differ
// cannot all be predicted right by any function of those inputs. Each such sample is "predicted" by
// the median of the other measurements of its inputs; the metrics of those predictions
// (costmodel/metrics.h) are the noise floor of a set of samples. It is not a strict bound: that
// prediction carries the other measurements' noise as well, so for independent noise of equal size
// on a pair its error is 1 to 2 times what knowing the true latency would give (sqrt(2) for normal
// noise), and a model that averages many similar samples can undercut it.
#pragma once

#include <span>
#include <vector>

#include "costmodel/sample.h"

namespace tensorperf::costmodel {

struct NoiseFloor {
  std::vector<size_t> positions;  // positions in `subset` whose inputs were measured more than once
  std::vector<double> predicted;  // for each: the median of the other measurements of its inputs
};

// Which samples share their inputs, found once for a sample set (an evaluation asks it for every
// split). Samples without a measured latency belong to no group. `samples` must outlive it.
class RepeatIndex {
 public:
  explicit RepeatIndex(std::span<const Sample> samples);
  // The noise floor of the samples `subset` names; the other measurements of their inputs may lie
  // outside it (a split's training set).
  NoiseFloor floor(std::span<const size_t> subset) const;

 private:
  std::span<const Sample> samples_;
  std::vector<int> group_;  // per sample: index into members_, -1 when unmeasured
  std::vector<std::vector<size_t>> members_;
};

}  // namespace tensorperf::costmodel
