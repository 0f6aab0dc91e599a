#include "ir/onnx/gelu_pattern.h"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/onnx/op_table.h"
#include "ir/onnx/tensor_proto.h"

namespace tensorperf::ir::onnx_import {
namespace {

class Matcher {
 public:
  explicit Matcher(const onnx::GraphProto& g) : g_(g) {
    for (int i = 0; i < g.node_size(); ++i) {
      for (const std::string& out : g.node(i).output()) producer_[out] = i;
      for (const std::string& in : g.node(i).input()) readers_[in].push_back(i);
    }
    for (const auto& o : g.output()) graph_outputs_.insert(o.name());
    for (const auto& t : g.initializer()) initializers_[t.name()] = &t;
  }

  // The node producing `name` when it is a default-domain `op_type`, or -1.
  int producer(const std::string& name, const char* op_type) const {
    auto it = producer_.find(name);
    if (it == producer_.end()) return -1;
    const onnx::NodeProto& n = g_.node(it->second);
    return n.op_type() == op_type && (n.domain().empty() || n.domain() == "ai.onnx") ? it->second : -1;
  }

  // The only reader of node i's output when it is an `op_type` node and the output is not a graph
  // output, or -1.
  int sole_reader(int i, const char* op_type) const {
    const std::string& out = g_.node(i).output(0);
    auto it = readers_.find(out);
    if (it == readers_.end() || it->second.size() != 1 || graph_outputs_.count(out) != 0) return -1;
    const onnx::NodeProto& n = g_.node(it->second[0]);
    return n.op_type() == op_type ? it->second[0] : -1;
  }

  // The other input of binary node i, given one of them.
  const std::string& other_input(int i, const std::string& one) const {
    const onnx::NodeProto& n = g_.node(i);
    return n.input(0) == one ? n.input(1) : n.input(0);
  }

  // Whether `name` is a one-element constant (initializer or Constant node) close to `want`.
  bool is_scalar(const std::string& name, double want) const {
    std::optional<ConstTensor> t;
    if (auto it = initializers_.find(name); it != initializers_.end()) {
      Result<ConstTensor> r = tensor_from_proto(*it->second);
      if (r.ok()) t = std::move(r).value();
    } else if (int c = producer(name, "Constant"); c >= 0) {
      for (const auto& a : g_.node(c).attribute()) {
        if (a.name() != "value" || !a.has_t()) continue;
        Result<ConstTensor> r = tensor_from_proto(a.t());
        if (r.ok()) t = std::move(r).value();
      }
    }
    return t && t->num_elements() == 1 && !t->is_integer() && std::fabs(t->float_at(0) - want) < 1e-4 * std::fabs(want);
  }

  // Binary node i computes (input `one`) op (scalar `want`).
  bool with_scalar(int i, const std::string& one, double want) const {
    const onnx::NodeProto& n = g_.node(i);
    return n.input_size() == 2 && (n.input(0) == one || n.input(1) == one) && is_scalar(other_input(i, one), want);
  }

  const onnx::GraphProto& graph() const { return g_; }

 private:
  const onnx::GraphProto& g_;
  std::map<std::string, int> producer_;
  std::map<std::string, std::vector<int>> readers_;
  std::set<std::string> graph_outputs_;
  std::map<std::string, const onnx::TensorProto*> initializers_;
};

struct Match {
  std::string x;
  std::string out;
  std::string name;
  std::vector<int> nodes;  // the pattern's nodes; the last one produces `out`
};

std::optional<Match> match_at(const Matcher& m, int erf) {
  const onnx::NodeProto& e = m.graph().node(erf);
  if (e.input_size() != 1 || e.output_size() != 1) return std::nullopt;
  // x / sqrt(2), or x * (1 / sqrt(2))
  int scale = m.producer(e.input(0), "Div");
  double factor = std::sqrt(2.0);
  if (scale < 0) {
    scale = m.producer(e.input(0), "Mul");
    factor = 1.0 / std::sqrt(2.0);
  }
  if (scale < 0 || m.sole_reader(scale, "Erf") != erf) return std::nullopt;
  const onnx::NodeProto& s = m.graph().node(scale);
  if (s.input_size() != 2) return std::nullopt;
  std::string x;
  if (m.is_scalar(s.input(1), factor)) {
    x = s.input(0);
  } else if (s.op_type() == "Mul" && m.is_scalar(s.input(0), factor)) {
    x = s.input(1);
  } else {
    return std::nullopt;
  }
  // 1 + erf(...)
  const int add = m.sole_reader(erf, "Add");
  if (add < 0 || !m.with_scalar(add, e.output(0), 1.0)) return std::nullopt;
  const int mul = m.sole_reader(add, "Mul");
  if (mul < 0 || m.graph().node(mul).input_size() != 2) return std::nullopt;
  const std::string& other = m.other_input(mul, m.graph().node(add).output(0));
  if (other == x) {  // (x * (1 + erf)) * 0.5
    const int half = m.sole_reader(mul, "Mul");
    if (half < 0 || !m.with_scalar(half, m.graph().node(mul).output(0), 0.5)) return std::nullopt;
    return Match{x, m.graph().node(half).output(0), e.name(), {scale, erf, add, mul, half}};
  }
  // (x * 0.5) * (1 + erf)
  const int half = m.producer(other, "Mul");
  if (half < 0 || m.sole_reader(half, "Mul") != mul || !m.with_scalar(half, x, 0.5)) return std::nullopt;
  return Match{x, m.graph().node(mul).output(0), e.name(), {scale, erf, add, half, mul}};
}

}  // namespace

int fuse_gelu(onnx::GraphProto& graph) {
  std::vector<Match> matches;
  {
    const Matcher m(graph);
    std::set<int> used;
    for (int i = 0; i < graph.node_size(); ++i) {
      if (graph.node(i).op_type() != "Erf") continue;
      std::optional<Match> match = match_at(m, i);
      if (!match) continue;
      bool overlaps = false;
      for (int n : match->nodes) overlaps = overlaps || used.count(n) != 0;
      if (overlaps) continue;
      used.insert(match->nodes.begin(), match->nodes.end());
      matches.push_back(std::move(*match));
    }
  }
  if (matches.empty()) return 0;
  // The Gelu node takes the place of the pattern's last node; the others are dropped.
  std::map<int, const Match*> replace;
  std::set<int> drop;
  for (const Match& match : matches) {
    replace[match.nodes.back()] = &match;
    drop.insert(match.nodes.begin(), match.nodes.end() - 1);
  }
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (int i = 0; i < graph.node_size(); ++i) {
    if (drop.count(i) != 0) continue;
    if (auto it = replace.find(i); it != replace.end()) {
      onnx::NodeProto gelu;
      gelu.set_name(it->second->name.empty() ? it->second->out : it->second->name);
      gelu.set_op_type("Gelu");
      gelu.set_domain(std::string(kInternalDomain));
      gelu.add_input(it->second->x);
      gelu.add_output(it->second->out);
      *kept.Add() = std::move(gelu);
    } else {
      *kept.Add() = graph.node(i);
    }
  }
  graph.mutable_node()->Swap(&kept);
  return static_cast<int>(matches.size());
}

}  // namespace tensorperf::ir::onnx_import
