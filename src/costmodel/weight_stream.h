// What reading its weights from memory adds to a convolution's or dense layer's time in a whole model.
// The profiler times one kernel over and over, so its weights stay in the caches from one run to the
// next; in a model the other operators' weights and activations pass through the caches between two
// runs of it, and its weights come from memory. How that shows depends on what bounds the kernel
// (docs/costmodel.md, "Weights read from memory"):
//
// - A kernel that does at least the device's ridge of flops per weight byte (peak GFLOP/s over
//   memory GB/s: a convolution, a dense layer over many rows) pays the stream on top of what it
//   computes: t = predicted + bytes / bandwidth. (oneDNN's convolutions at batch 1 on a 2-core Xeon:
//   a 512x512 3x3 conv at 7x7, predicted 0.59 ms, ran 0.89-1.05 ms in the graph; its 9.4 MB at the
//   triad's 27.7 GB/s take 0.34 ms.)
// - A kernel below the ridge (a dense layer over a few rows) is itself a stream of its weights: the
//   graph makes it as slow as streaming them from memory and no slower, t = max(predicted, bytes /
//   bandwidth). Its profiler timing already is that when the weights do not fit in a cache.
//
// Only the main op's second input counts as weights (conv2d's and dense's w); a matrix product's
// operands are activations.
#pragma once

#include "ir/workload.h"

namespace tensorperf::costmodel {

// Bytes of the weights of one instance of `w`: conv2d's and dense's second input, else 0.
double weight_bytes(const ir::Workload& w);

// Seconds one instance of `w` spends in a model beyond its `predicted_s` (the profiler-like
// prediction) for reading its weights from memory, on a device of `peak_gflops` and
// `mem_bandwidth_gbs` (its measured triad). 0 for an op without weights or a device without a
// measured bandwidth; a device without a peak counts every kernel as above its ridge.
double streamed_weights_seconds(const ir::Workload& w, double predicted_s, double peak_gflops,
                                double mem_bandwidth_gbs);

}  // namespace tensorperf::costmodel
