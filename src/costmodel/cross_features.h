// Features of a program on a device that neither vector has alone: the data it moves against the
// device's caches, and its arithmetic intensity against the device's balance of FLOP/s to bytes/s.
// Trees reach such ratios only through many splits on both vectors; with them, a workload larger
// than any the model saw on a device lands in the regime of the ones it resembles (in L2, in L3,
// in memory), and a device it never saw is placed by its caches and peaks rather than by raw sizes.
#pragma once

#include <string>
#include <vector>

#include "costmodel/sample.h"

namespace tensorperf::costmodel {

// The columns, each a log2 ratio:
//   bytes_per_thread_over_l1, bytes_per_thread_over_l2: the bytes of the inputs and output, split
//     over the device's threads, against one core's L1d and L2;
//   bytes_over_l3: those bytes against the L3;
//   intensity_over_balance: FLOPs per byte against peak FLOP/s per byte/s (> 0: compute-bound);
//   roofline_us: the roofline estimate (roofline.h) in microseconds.
const std::vector<std::string>& cross_feature_names();

// cross_feature_names() columns of `s`, from its program vector's workload.* columns and its
// device vector. A missing or zero cache size or peak counts as 1 (no division by zero): the
// values are always finite. REQUIRES: `s` has this build's program and device widths.
std::vector<float> cross_features(const Sample& s);

}  // namespace tensorperf::costmodel
