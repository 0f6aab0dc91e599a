// Hand-built workloads for kernel tests and benchmarks (the output type comes from the IR's shape
// inference), and random inputs for them.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "ir/workload.h"
#include "kernels/host_tensor.h"

namespace tensorperf::kernels::testing {

// REQUIRES: the op's shape inference accepts the inputs and attrs (throws std::logic_error otherwise).
ir::Workload make_workload(ir::OpKind op, std::vector<ir::Shape> inputs, ir::Attrs attrs = {},
                           std::vector<std::string> epilogue = {});

// Tensors for kernel_input_types(w), filled uniform in [-1, 1) (batch_norm variances in [0.5, 1.5)).
std::vector<HostTensor> random_inputs(const ir::Workload& w, std::mt19937_64& rng);
std::vector<const HostTensor*> pointers(const std::vector<HostTensor>& tensors);

// Small workloads covering every op kind, odd sizes, strides, groups, dilation, padding, epilogues.
std::vector<ir::Workload> coverage_workloads();

}  // namespace tensorperf::kernels::testing
