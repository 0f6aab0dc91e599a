// Graphviz DOT of a graph: one box per operator (name, op kind, output shape), one ellipse per graph
// input, edges between them labelled with the tensor's shape. Constants (weights) are left out so
// that large models stay readable; their shapes are in the operator's workload.
#pragma once

#include <string>

#include "ir/graph.h"

namespace tensorperf::ir {

std::string to_dot(const Graph& g);

}  // namespace tensorperf::ir
