#include "ir/onnx/gelu_pattern.h"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <optional>

#include "ir/onnx/pattern_matcher.h"

namespace tensorperf::ir::onnx_import {
namespace {

std::optional<Rewrite> match_at(const GraphMatcher& m, int erf) {
  const onnx::NodeProto& e = m.node(erf);
  if (e.input_size() != 1 || e.output_size() != 1) return std::nullopt;
  // x / sqrt(2), or x * (1 / sqrt(2))
  int scale = m.producer(e.input(0), "Div");
  double factor = std::sqrt(2.0);
  if (scale < 0) {
    scale = m.producer(e.input(0), "Mul");
    factor = 1.0 / std::sqrt(2.0);
  }
  if (scale < 0 || m.sole_reader(scale, "Erf") != erf) return std::nullopt;
  const onnx::NodeProto& s = m.node(scale);
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
  if (mul < 0 || m.node(mul).input_size() != 2) return std::nullopt;
  const std::string& other = m.other_input(mul, m.node(add).output(0));
  const std::string name = e.name().empty() ? e.output(0) : e.name();
  if (other == x) {  // (x * (1 + erf)) * 0.5
    const int half = m.sole_reader(mul, "Mul");
    if (half < 0 || !m.with_scalar(half, m.node(mul).output(0), 0.5)) return std::nullopt;
    return Rewrite{{scale, erf, add, mul, half}, name, "Gelu", {x}, {m.node(half).output(0)}, {}, {}};
  }
  // (x * 0.5) * (1 + erf)
  const int half = m.producer(other, "Mul");
  if (half < 0 || m.sole_reader(half, "Mul") != mul || !m.with_scalar(half, x, 0.5)) return std::nullopt;
  return Rewrite{{scale, erf, add, half, mul}, name, "Gelu", {x}, {m.node(mul).output(0)}, {}, {}};
}

}  // namespace

int fuse_gelu(onnx::GraphProto& graph) {
  std::vector<Rewrite> rewrites;
  {
    const GraphMatcher m(graph);
    for (int i = 0; i < m.num_nodes(); ++i) {
      if (m.node(i).op_type() != "Erf") continue;
      if (std::optional<Rewrite> r = match_at(m, i)) rewrites.push_back(std::move(*r));
    }
  }
  return apply_rewrites(graph, rewrites);
}

}  // namespace tensorperf::ir::onnx_import
