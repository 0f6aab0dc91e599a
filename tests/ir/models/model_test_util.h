// Helpers for the zoo's tests: multiply-adds of a model's anchor ops and node counts.
#pragma once

#include <cstdint>
#include <string>

#include "ir/graph.h"
#include "ir/models/zoo.h"
#include "ir/op_kind.h"

namespace tensorperf::ir::models::testing {

// Multiply-adds of the anchor tasks (conv2d, dense, matmul, batch_matmul) ir::extract_tasks finds:
// count x Workload::flops() / 2, epilogues excluded, torchvision's "MACs of the conv and linear
// layers". Fails the current test (and returns -1) when extraction fails.
double anchor_macs(const Graph& g);
int64_t count_nodes(const Graph& g, OpKind op);

// Builds `name` and checks its anchor MACs: equal to `torchvision_macs` (the count that
// export_torchvision.py's hooks report for the same input size), and, when `published_gmac` > 0,
// within 1% of it.
void expect_macs(const std::string& name, const ModelOptions& options, double torchvision_macs,
                 double published_gmac = 0);

}  // namespace tensorperf::ir::models::testing
