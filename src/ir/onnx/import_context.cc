#include "ir/onnx/import_context.h"

namespace tensorperf::ir::onnx_import {

const ConstTensor* ImportContext::constant(const std::string& name) const {
  auto it = bindings_.find(name);
  return it == bindings_.end() || !it->second.constant ? nullptr : &*it->second.constant;
}

const PendingPad* ImportContext::pending_pad(const std::string& name) const {
  auto it = bindings_.find(name);
  return it == bindings_.end() || !it->second.pad ? nullptr : &*it->second.pad;
}

Result<ValueId> ImportContext::value(const std::string& name) {
  auto it = bindings_.find(name);
  if (it == bindings_.end()) {
    return Status::InvalidArgument("tensor '" + name + "' is not produced by any node, initializer or graph input");
  }
  Binding& b = it->second;
  if (b.value) return *b.value;
  if (b.pad) {
    return Status::Unsupported(b.pad->node + ": a Pad is supported only when an AveragePool or Conv reads it");
  }
  b.value = graph_.add_constant(b.constant_name, b.constant->type(), b.constant->data);
  return *b.value;
}

Result<TensorType> ImportContext::type(const std::string& name) const {
  auto it = bindings_.find(name);
  if (it == bindings_.end()) {
    return Status::InvalidArgument("tensor '" + name + "' is not produced by any node, initializer or graph input");
  }
  const Binding& b = it->second;
  if (b.constant) return b.constant->type();
  if (b.value) return graph_.type(*b.value);
  return Status::Unsupported(b.pad->node + ": a Pad is supported only when an AveragePool or Conv reads it");
}

Result<ValueId> ImportContext::add_op(const OnnxNode& node, OpKind op, std::vector<ValueId> inputs, Attrs attrs,
                                      const std::string& suffix) {
  Result<ValueId> v =
      graph_.add_op(op, suffix.empty() ? node.name() : node.name() + "/" + suffix, std::move(inputs), std::move(attrs));
  if (!v.ok()) return v.status().WithContext(node.describe());
  return v;
}

Result<std::vector<ValueId>> ImportContext::add_multi_output_op(const OnnxNode& node, OpKind op,
                                                                std::vector<ValueId> inputs, Attrs attrs,
                                                                int num_outputs) {
  Result<NodeId> id = graph_.add_node(op, node.name(), std::move(inputs), std::move(attrs), num_outputs);
  if (!id.ok()) return id.status().WithContext(node.describe());
  return graph_.node(*id).outputs;
}

}  // namespace tensorperf::ir::onnx_import
