// The constant tensors (weights) of a graph as host tensors: the data an ONNX file carries, or,
// for constants known only by shape (the zoo's models), seeded random data whose scale suits the
// constant's role, so that activations stay in a sane range through deep networks: He-uniform for
// convolution and dense weights, batch-norm scales and variances near 1, small biases and means.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "base/status.h"
#include "ir/graph.h"
#include "kernels/host_tensor.h"

namespace tensorperf::runtime {

// Per value id: the constant's tensor, or null for values that are not constants. The same seed
// gives the same data. Errors: a constant whose stored bytes do not match its type.
Result<std::vector<std::shared_ptr<kernels::HostTensor>>> load_constants(const ir::Graph& g, uint64_t seed);

}  // namespace tensorperf::runtime
