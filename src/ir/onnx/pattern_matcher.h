// Support for the pattern passes that turn exporters' decompositions (GELU via Erf, LayerNorm via
// ReduceMean before opset 17) back into single nodes of kInternalDomain (op_table.h): a read-only
// index over an ONNX graph, and the rewrite that swaps matched nodes for one node. Private to
// src/ir/onnx/.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/onnx/const_tensor.h"

namespace onnx {
class GraphProto;
class NodeProto;
class TensorProto;
}  // namespace onnx

namespace tensorperf::ir::onnx_import {

class GraphMatcher {
 public:
  // REQUIRES: `graph` outlives the matcher and does not change while it is used.
  explicit GraphMatcher(const onnx::GraphProto& graph);

  const onnx::NodeProto& node(int i) const;
  int num_nodes() const;
  // The node producing `name` when it is a default-domain `op_type`, or -1.
  int producer(const std::string& name, const char* op_type) const;
  // The nodes reading `name`, in file order.
  std::vector<int> readers(const std::string& name) const;
  bool is_graph_output(const std::string& name) const { return graph_outputs_.count(name) != 0; }
  // The only reader of node i's output when node i has one output, that output is not a graph
  // output, and the reader is an `op_type` node with one output; else -1.
  int sole_reader(int i, const char* op_type) const;
  // The other input of two-input node i, given one of them.
  const std::string& other_input(int i, const std::string& one) const;
  // The value of `name` when it is an initializer or a Constant node's output, possibly through
  // Identity nodes.
  std::optional<ConstTensor> constant(const std::string& name) const;
  // Whether `name` is a one-element floating-point constant within 1e-4 (relative) of `want`.
  bool is_scalar(const std::string& name, double want) const;
  // Whether two-input node i reads `one` and a scalar constant close to `want`.
  bool with_scalar(int i, const std::string& one, double want) const;
  // An INTS attribute of node i, or `fallback` when absent.
  std::vector<int64_t> attr_ints(int i, const char* name, const std::vector<int64_t>& fallback) const;
  int64_t attr_int(int i, const char* name, int64_t fallback) const;

 private:
  const onnx::GraphProto& graph_;
  std::map<std::string, int> producer_;
  std::map<std::string, std::vector<int>> readers_;
  std::set<std::string> graph_outputs_;
  std::map<std::string, const onnx::TensorProto*> initializers_;
};

// One match to replace: the new node (in kInternalDomain) takes the place of nodes.back(); the
// other matched nodes are removed.
struct Rewrite {
  std::vector<int> nodes;
  std::string name;
  std::string op_type;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<std::pair<std::string, int64_t>> int_attrs;
  std::vector<std::pair<std::string, float>> float_attrs;
};

// Applies `rewrites` in order, skipping any that shares a node with an earlier one. Returns how many
// were applied.
int apply_rewrites(onnx::GraphProto& graph, const std::vector<Rewrite>& rewrites);

}  // namespace tensorperf::ir::onnx_import
