#include "ir/onnx/pattern_matcher.h"

#include <onnx/onnx_pb.h>

#include <cmath>

#include "ir/onnx/op_table.h"
#include "ir/onnx/tensor_proto.h"

namespace tensorperf::ir::onnx_import {
namespace {

bool is_default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

}  // namespace

GraphMatcher::GraphMatcher(const onnx::GraphProto& graph) : graph_(graph) {
  for (int i = 0; i < graph.node_size(); ++i) {
    for (const std::string& out : graph.node(i).output()) producer_[out] = i;
    for (const std::string& in : graph.node(i).input()) readers_[in].push_back(i);
  }
  for (const auto& o : graph.output()) graph_outputs_.insert(o.name());
  for (const auto& t : graph.initializer()) initializers_[t.name()] = &t;
}

const onnx::NodeProto& GraphMatcher::node(int i) const { return graph_.node(i); }
int GraphMatcher::num_nodes() const { return graph_.node_size(); }

int GraphMatcher::producer(const std::string& name, const char* op_type) const {
  auto it = producer_.find(name);
  if (it == producer_.end()) return -1;
  const onnx::NodeProto& n = graph_.node(it->second);
  return n.op_type() == op_type && is_default_domain(n.domain()) ? it->second : -1;
}

std::vector<int> GraphMatcher::readers(const std::string& name) const {
  auto it = readers_.find(name);
  return it == readers_.end() ? std::vector<int>{} : it->second;
}

int GraphMatcher::sole_reader(int i, const char* op_type) const {
  if (graph_.node(i).output_size() != 1) return -1;
  const std::string& out = graph_.node(i).output(0);
  const std::vector<int> r = readers(out);
  if (r.size() != 1 || is_graph_output(out)) return -1;
  const onnx::NodeProto& n = graph_.node(r[0]);
  return n.op_type() == op_type && is_default_domain(n.domain()) && n.output_size() == 1 ? r[0] : -1;
}

const std::string& GraphMatcher::other_input(int i, const std::string& one) const {
  const onnx::NodeProto& n = graph_.node(i);
  return n.input(0) == one ? n.input(1) : n.input(0);
}

std::optional<ConstTensor> GraphMatcher::constant(const std::string& name) const {
  const onnx::TensorProto* proto = nullptr;
  if (auto it = initializers_.find(name); it != initializers_.end()) {
    proto = it->second;
  } else if (int c = producer(name, "Constant"); c >= 0) {
    const onnx::AttributeProto* a = find_attr(graph_.node(c), "value");
    if (a != nullptr && a->has_t()) proto = &a->t();
  } else if (int i = producer(name, "Identity"); i >= 0 && graph_.node(i).input_size() == 1) {
    return constant(graph_.node(i).input(0));  // exporters alias equal weights through Identity
  }
  if (proto == nullptr) return std::nullopt;
  Result<ConstTensor> t = tensor_from_proto(*proto);
  if (!t.ok()) return std::nullopt;
  return std::move(t).value();
}

bool GraphMatcher::is_scalar(const std::string& name, double want) const {
  const std::optional<ConstTensor> t = constant(name);
  return t && t->num_elements() == 1 && !t->is_integer() && std::fabs(t->float_at(0) - want) <= 1e-4 * std::fabs(want);
}

bool GraphMatcher::with_scalar(int i, const std::string& one, double want) const {
  const onnx::NodeProto& n = graph_.node(i);
  return n.input_size() == 2 && (n.input(0) == one || n.input(1) == one) && is_scalar(other_input(i, one), want);
}

std::vector<int64_t> GraphMatcher::attr_ints(int i, const char* name, const std::vector<int64_t>& fallback) const {
  const onnx::AttributeProto* a = find_attr(graph_.node(i), name);
  if (a == nullptr || a->type() != onnx::AttributeProto::INTS) return fallback;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

int64_t GraphMatcher::attr_int(int i, const char* name, int64_t fallback) const {
  const onnx::AttributeProto* a = find_attr(graph_.node(i), name);
  return a == nullptr || a->type() != onnx::AttributeProto::INT ? fallback : a->i();
}

int apply_rewrites(onnx::GraphProto& graph, const std::vector<Rewrite>& rewrites) {
  std::set<int> used;
  std::map<int, const Rewrite*> replace;
  for (const Rewrite& r : rewrites) {
    bool overlaps = false;
    for (int n : r.nodes) overlaps = overlaps || used.count(n) != 0;
    if (overlaps) continue;
    used.insert(r.nodes.begin(), r.nodes.end());
    replace[r.nodes.back()] = &r;
  }
  if (replace.empty()) return 0;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (int i = 0; i < graph.node_size(); ++i) {
    auto it = replace.find(i);
    if (it == replace.end()) {
      if (used.count(i) == 0) *kept.Add() = graph.node(i);
      continue;
    }
    const Rewrite& r = *it->second;
    onnx::NodeProto* n = kept.Add();
    n->set_name(r.name);
    n->set_op_type(r.op_type);
    n->set_domain(std::string(kInternalDomain));
    for (const std::string& in : r.inputs) n->add_input(in);
    for (const std::string& out : r.outputs) n->add_output(out);
    for (const auto& [name, v] : r.int_attrs) {
      onnx::AttributeProto* a = n->add_attribute();
      a->set_name(name);
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(v);
    }
    for (const auto& [name, v] : r.float_attrs) {
      onnx::AttributeProto* a = n->add_attribute();
      a->set_name(name);
      a->set_type(onnx::AttributeProto::FLOAT);
      a->set_f(v);
    }
  }
  graph.mutable_node()->Swap(&kept);
  return static_cast<int>(replace.size());
}

}  // namespace tensorperf::ir::onnx_import
