// Test fixtures for the ONNX importer: small models written by make_onnx_fixtures.py.
#pragma once

#include <string>

#include "base/status.h"
#include "ir/graph.h"
#include "ir/onnx/onnx_import.h"

namespace tensorperf::ir::testing {

// The path of fixture `<name>.onnx`. The first call writes every fixture into a fresh temporary
// directory (removed at exit); throws std::runtime_error when the script fails.
std::string onnx_fixture(const std::string& name);

// import_onnx(onnx_fixture(name), options).
Result<Graph> import_fixture(const std::string& name, const OnnxImportOptions& options = {});

// The nodes of `g` in topological order, as op names ("conv2d", "relu", ...).
std::vector<std::string> op_sequence(const Graph& g);

// The one node of kind `op`; throws std::runtime_error when there are none or several.
const Node& only_node(const Graph& g, OpKind op);

// The float32 payload of constant `v`.
std::vector<float> constant_floats(const Graph& g, ValueId v);

}  // namespace tensorperf::ir::testing
