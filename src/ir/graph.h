// A model as a DAG of operators over tensors (values). Values are graph inputs, constants (weights,
// with data when imported from a file) or node outputs. Node and value ids are dense indices.
//
// Building: add_input / add_constant / add_node, then mark_outputs. add_node infers its outputs' types
// at once when all input types are known, so builders can read shapes as they go. validate() checks
// the whole graph (unknown inputs, cycles, shape consistency), each error naming the node.
// Thread-safety: a const Graph may be read from many threads; mutation needs external locking.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "ir/attrs.h"
#include "ir/op_kind.h"
#include "ir/tensor_type.h"

namespace tensorperf::ir {

using ValueId = int32_t;
using NodeId = int32_t;
inline constexpr NodeId kNoNode = -1;

enum class ValueKind { kInput, kConstant, kNodeOutput };

struct Value {
  std::string name;
  ValueKind kind = ValueKind::kNodeOutput;
  std::optional<TensorType> type;  // empty until inferred (node outputs only)
  NodeId producer = kNoNode;       // for kNodeOutput
  // Constant payload (row-major, element type per `type`), or null when only the shape is known
  // (the zoo's weights). Shared so copies of a Graph do not duplicate weights.
  std::shared_ptr<const std::vector<std::byte>> data;
};

struct Node {
  std::string name;
  OpKind op;
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;
  Attrs attrs;
};

class Graph {
 public:
  explicit Graph(std::string name = "graph") : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }

  ValueId add_input(std::string name, TensorType type);
  ValueId add_constant(std::string name, TensorType type,
                       std::shared_ptr<const std::vector<std::byte>> data = nullptr);
  // Adds a node with `num_outputs` fresh output values named "<name>" (or "<name>:<i>" when several).
  // Errors (each naming the node): an input id that does not exist, wrong input count or attribute
  // types for the op, or a shape mismatch when input types are known.
  Result<NodeId> add_node(OpKind op, std::string name, std::vector<ValueId> inputs, Attrs attrs = {},
                          int num_outputs = 1);
  // Convenience for builders: add_node and return its single output. Same errors.
  Result<ValueId> add_op(OpKind op, std::string name, std::vector<ValueId> inputs, Attrs attrs = {});
  // `name`: what the model calls the output when that is not the value's own name (an ONNX graph
  // output bound to an Identity's input, or to a value the importer named after its node).
  void mark_output(ValueId v, std::string name = "") {
    outputs_.push_back(v);
    output_names_.push_back(std::move(name));
  }

  // Rewiring for graph passes. No checks here; validate() afterwards.
  void set_node_input(NodeId node, size_t index, ValueId v) { nodes_.at(node).inputs.at(index) = v; }

  // Whole-graph check: every input id exists, no cycle (the error names a node on it), every node's
  // inputs and attributes fit its op, and re-inferred types equal the stored ones.
  Status validate() const;
  // Re-infers every node output type in topological order (after graph inputs changed).
  Status infer_types();
  // Sets dim 0 of every graph input to `batch` and re-infers. REQUIRES: batch >= 1.
  Status set_batch(int64_t batch);
  // Dim 0 of the first graph input (1 for a graph with no inputs).
  int64_t batch() const;

  // Nodes in an order where every producer precedes its consumers; ties keep insertion order.
  // Error on a cycle.
  Result<std::vector<NodeId>> topo_order() const;
  // For each value, the nodes that read it (in node id order).
  std::vector<std::vector<NodeId>> consumers() const;

  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<Value>& values() const { return values_; }
  const Node& node(NodeId id) const { return nodes_.at(id); }
  const Value& value(ValueId id) const { return values_.at(id); }
  // REQUIRES: the value's type is known.
  const TensorType& type(ValueId id) const { return *values_.at(id).type; }
  const std::vector<ValueId>& inputs() const { return inputs_; }
  const std::vector<ValueId>& outputs() const { return outputs_; }
  // The i-th output's name: as marked, else its value's name.
  const std::string& output_name(size_t i) const {
    return output_names_.at(i).empty() ? value(outputs_.at(i)).name : output_names_.at(i);
  }
  bool is_constant(ValueId id) const { return values_.at(id).kind == ValueKind::kConstant; }

 private:
  Status infer_node(NodeId id);

  std::string name_;
  std::vector<Node> nodes_;
  std::vector<Value> values_;
  std::vector<ValueId> inputs_;
  std::vector<ValueId> outputs_;
  std::vector<std::string> output_names_;  // parallel to outputs_; empty: the value's name
};

}  // namespace tensorperf::ir
