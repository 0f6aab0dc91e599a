#include "ir/graph.h"

#include <queue>
#include <string>

#include "ir/op_registry.h"

namespace tensorperf::ir {

namespace {

std::string node_label(const Node& n) { return "node \"" + n.name + "\" (" + std::string(op_name(n.op)) + ")"; }

}  // namespace

ValueId Graph::add_input(std::string name, TensorType type) {
  ValueId id = static_cast<ValueId>(values_.size());
  values_.push_back(Value{std::move(name), ValueKind::kInput, std::move(type), kNoNode, nullptr});
  inputs_.push_back(id);
  return id;
}

ValueId Graph::add_constant(std::string name, TensorType type, std::shared_ptr<const std::vector<std::byte>> data) {
  ValueId id = static_cast<ValueId>(values_.size());
  values_.push_back(Value{std::move(name), ValueKind::kConstant, std::move(type), kNoNode, std::move(data)});
  return id;
}

Result<NodeId> Graph::add_node(OpKind op, std::string name, std::vector<ValueId> inputs, Attrs attrs, int num_outputs) {
  NodeId id = static_cast<NodeId>(nodes_.size());
  Node node{std::move(name), op, std::move(inputs), {}, std::move(attrs)};
  for (ValueId v : node.inputs)
    if (v < 0 || v >= static_cast<ValueId>(values_.size()))
      return Status::InvalidArgument(node_label(node) + ": unknown input value id " + std::to_string(v));
  if (num_outputs < 1) return Status::InvalidArgument(node_label(node) + ": needs at least one output");
  for (int i = 0; i < num_outputs; ++i) {
    std::string vname = num_outputs == 1 ? node.name : node.name + ":" + std::to_string(i);
    node.outputs.push_back(static_cast<ValueId>(values_.size()));
    values_.push_back(Value{std::move(vname), ValueKind::kNodeOutput, std::nullopt, id, nullptr});
  }
  nodes_.push_back(std::move(node));
  bool known = true;
  for (ValueId v : nodes_.back().inputs) known = known && values_[v].type.has_value();
  if (known) {
    Status s = infer_node(id);
    if (!s.ok()) {  // leave the graph as it was
      values_.resize(values_.size() - num_outputs);
      nodes_.pop_back();
      return s;
    }
  }
  return id;
}

Result<ValueId> Graph::add_op(OpKind op, std::string name, std::vector<ValueId> inputs, Attrs attrs) {
  TP_ASSIGN_OR_RETURN(NodeId n, add_node(op, std::move(name), std::move(inputs), std::move(attrs), 1));
  return nodes_[n].outputs[0];
}

Status Graph::infer_node(NodeId id) {
  Node& n = nodes_[id];
  std::vector<TensorType> in;
  for (ValueId v : n.inputs) {
    if (!values_[v].type)
      return Status::InvalidArgument(node_label(n) + ": input \"" + values_[v].name + "\" has no known type");
    in.push_back(*values_[v].type);
  }
  auto out = infer_op(n.op, in, n.attrs, static_cast<int>(n.outputs.size()));
  if (!out.ok()) {
    const std::string message = node_label(n) + ": " + out.status().message();
    return out.status().code() == StatusCode::kUnsupported ? Status::Unsupported(message)
                                                           : Status::InvalidArgument(message);
  }
  for (size_t i = 0; i < n.outputs.size(); ++i) values_[n.outputs[i]].type = (*out)[i];
  return Status::Ok();
}

Result<std::vector<NodeId>> Graph::topo_order() const {
  // Kahn's algorithm over node->node edges; a min-heap on node id keeps insertion order among ties.
  std::vector<int> pending(nodes_.size(), 0);
  auto users = consumers();
  for (size_t i = 0; i < nodes_.size(); ++i)
    for (ValueId v : nodes_[i].inputs)
      if (v >= 0 && v < static_cast<ValueId>(values_.size()) && values_[v].producer != kNoNode) ++pending[i];
  std::priority_queue<NodeId, std::vector<NodeId>, std::greater<>> ready;
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (pending[i] == 0) ready.push(static_cast<NodeId>(i));
  std::vector<NodeId> order;
  order.reserve(nodes_.size());
  while (!ready.empty()) {
    NodeId n = ready.top();
    ready.pop();
    order.push_back(n);
    for (ValueId out : nodes_[n].outputs)
      for (NodeId user : users[out])
        for (ValueId in : nodes_[user].inputs)
          if (in == out && --pending[user] == 0) ready.push(user);
  }
  if (order.size() != nodes_.size()) {
    for (size_t i = 0; i < nodes_.size(); ++i)
      if (pending[i] > 0)
        return Status::InvalidArgument("graph \"" + name_ + "\" has a cycle through " + node_label(nodes_[i]));
  }
  return order;
}

std::vector<std::vector<NodeId>> Graph::consumers() const {
  std::vector<std::vector<NodeId>> users(values_.size());
  for (size_t i = 0; i < nodes_.size(); ++i)
    for (ValueId v : nodes_[i].inputs) {
      if (v < 0 || v >= static_cast<ValueId>(values_.size())) continue;
      auto& u = users[v];
      if (u.empty() || u.back() != static_cast<NodeId>(i)) u.push_back(static_cast<NodeId>(i));
    }
  return users;
}

Status Graph::validate() const {
  for (const Node& n : nodes_)
    for (ValueId v : n.inputs)
      if (v < 0 || v >= static_cast<ValueId>(values_.size()))
        return Status::InvalidArgument(node_label(n) + ": unknown input value id " + std::to_string(v));
  for (ValueId v : outputs_)
    if (v < 0 || v >= static_cast<ValueId>(values_.size()))
      return Status::InvalidArgument("graph \"" + name_ + "\": unknown output value id " + std::to_string(v));
  TP_ASSIGN_OR_RETURN(std::vector<NodeId> order, topo_order());
  Graph copy = *this;
  for (NodeId id : order) {
    TP_RETURN_IF_ERROR(copy.infer_node(id));
    for (ValueId out : nodes_[id].outputs)
      if (values_[out].type != copy.values_[out].type)
        return Status::InvalidArgument(node_label(nodes_[id]) + ": stored output type " +
                                       (values_[out].type ? values_[out].type->to_string() : "unknown") +
                                       " differs from the inferred " + copy.values_[out].type->to_string());
  }
  return Status::Ok();
}

Status Graph::infer_types() {
  TP_ASSIGN_OR_RETURN(std::vector<NodeId> order, topo_order());
  for (NodeId id : order) TP_RETURN_IF_ERROR(infer_node(id));
  return Status::Ok();
}

Status Graph::set_batch(int64_t batch) {
  if (batch < 1) return Status::InvalidArgument("batch size must be >= 1, got " + std::to_string(batch));
  for (ValueId v : inputs_) {
    auto& type = values_[v].type;
    if (type && !type->shape.empty()) type->shape[0] = batch;
  }
  return infer_types();
}

int64_t Graph::batch() const {
  if (inputs_.empty()) return 1;
  const auto& t = values_[inputs_[0]].type;
  return t && !t->shape.empty() ? t->shape[0] : 1;
}

}  // namespace tensorperf::ir
