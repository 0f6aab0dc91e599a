// The state of one import: the IR graph being built and what each ONNX tensor name is bound to (an
// IR value, a known constant, or a zero Pad waiting to merge into the pool or conv that reads it).
// Private to src/ir/onnx/.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "ir/graph.h"
#include "ir/onnx/const_tensor.h"
#include "ir/onnx/onnx_node.h"

namespace tensorperf::ir::onnx_import {

// A constant-mode zero Pad over the two spatial axes of a 4-D tensor, not yet emitted: AveragePool
// (counting the padding) and Conv absorb it into their pads.
struct PendingPad {
  std::string source;         // the ONNX name of the padded tensor
  std::vector<int64_t> pads;  // IR order: top, left, bottom, right
  std::string node;           // the Pad node, for errors (OnnxNode::describe())
};

class ImportContext {
 public:
  explicit ImportContext(Graph& graph) : graph_(graph) {}

  Graph& graph() { return graph_; }

  bool is_bound(const std::string& name) const { return bindings_.count(name) != 0; }
  // The constant bound to `name`, or null when it is not a known constant.
  const ConstTensor* constant(const std::string& name) const;
  // The pending pad bound to `name`, or null.
  const PendingPad* pending_pad(const std::string& name) const;
  // The IR value for `name`, adding a known constant to the graph on first use. Errors: an unbound
  // name, or a pending pad read by an op that cannot absorb it (Unsupported naming the Pad node).
  Result<ValueId> value(const std::string& name);
  // The type of `name` (IR value or constant); InvalidArgument when unbound.
  Result<TensorType> type(const std::string& name) const;

  void bind_value(const std::string& name, ValueId v) { bindings_[name] = Binding{v, std::nullopt, std::nullopt, ""}; }
  void bind_constant(const std::string& name, ConstTensor t) {
    bindings_[name] = Binding{std::nullopt, std::move(t), std::nullopt, name};
  }
  void bind_pad(const std::string& name, PendingPad p) {
    bindings_[name] = Binding{std::nullopt, std::nullopt, std::move(p), ""};
  }

  // Binds `name` to whatever `source` is bound to (Identity, Dropout). REQUIRES: source is bound.
  void alias(const std::string& name, const std::string& source) { bindings_[name] = bindings_.at(source); }

  // graph().add_op with the ONNX node as error context; `suffix` distinguishes several IR nodes
  // made for one ONNX node ("" for the main one).
  Result<ValueId> add_op(const OnnxNode& node, OpKind op, std::vector<ValueId> inputs, Attrs attrs = {},
                         const std::string& suffix = "");
  // graph().add_node with `num_outputs` outputs (Split), returning them, with the same error context.
  Result<std::vector<ValueId>> add_multi_output_op(const OnnxNode& node, OpKind op, std::vector<ValueId> inputs,
                                                   Attrs attrs, int num_outputs);

 private:
  struct Binding {
    std::optional<ValueId> value;
    std::optional<ConstTensor> constant;
    std::optional<PendingPad> pad;
    std::string constant_name;  // the IR constant's name: the initializer's, also through aliases
  };

  Graph& graph_;
  std::map<std::string, Binding> bindings_;
};

}  // namespace tensorperf::ir::onnx_import
