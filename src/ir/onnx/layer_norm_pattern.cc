#include "ir/onnx/layer_norm_pattern.h"

#include <onnx/onnx_pb.h>

#include <optional>

#include "ir/onnx/pattern_matcher.h"

namespace tensorperf::ir::onnx_import {
namespace {

// The first axis of a ReduceMean (keepdims=1) over trailing axes given as negative numbers
// ([-1] -> -1, [-2, -1] -> -2), or nullopt.
std::optional<int64_t> trailing_axis(const GraphMatcher& m, int reduce) {
  if (m.attr_int(reduce, "keepdims", 1) != 1 || m.node(reduce).input_size() != 1) return std::nullopt;
  const std::vector<int64_t> axes = m.attr_ints(reduce, "axes", {});
  if (axes.empty()) return std::nullopt;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] != -static_cast<int64_t>(axes.size() - i)) return std::nullopt;
  }
  return axes.front();
}

std::optional<Rewrite> match_at(const GraphMatcher& m, int mean) {
  const std::optional<int64_t> axis = trailing_axis(m, mean);
  if (!axis) return std::nullopt;
  const std::string& x = m.node(mean).input(0);
  // d = x - mean(x), read by the Pow and the Div only
  const int sub = m.sole_reader(mean, "Sub");
  if (sub < 0 || m.node(sub).input_size() != 2 || m.node(sub).input(0) != x) return std::nullopt;
  const std::string& d = m.node(sub).output(0);
  const std::vector<int> d_readers = m.readers(d);
  if (d_readers.size() != 2 || m.is_graph_output(d)) return std::nullopt;
  const int pow = m.node(d_readers[0]).op_type() == "Pow" ? d_readers[0] : d_readers[1];
  const int div = pow == d_readers[0] ? d_readers[1] : d_readers[0];
  for (int n : {pow, div}) {
    if (m.node(n).input_size() != 2 || m.node(n).output_size() != 1) return std::nullopt;
  }
  if (m.node(pow).op_type() != "Pow" || m.node(div).op_type() != "Div" || m.node(pow).input(0) != d ||
      !m.is_scalar(m.node(pow).input(1), 2.0) || m.node(div).input(0) != d) {
    return std::nullopt;
  }
  // sqrt(mean(d^2) + epsilon)
  const int var = m.sole_reader(pow, "ReduceMean");
  if (var < 0 || trailing_axis(m, var) != axis) return std::nullopt;
  const int add_eps = m.sole_reader(var, "Add");
  if (add_eps < 0 || m.node(add_eps).input_size() != 2) return std::nullopt;
  const std::optional<ConstTensor> eps = m.constant(m.other_input(add_eps, m.node(var).output(0)));
  if (!eps || eps->num_elements() != 1 || eps->is_integer()) return std::nullopt;
  const int sqrt = m.sole_reader(add_eps, "Sqrt");
  if (sqrt < 0 || m.sole_reader(sqrt, "Div") != div || m.node(div).input(1) != m.node(sqrt).output(0)) {
    return std::nullopt;
  }
  // * gamma + beta
  const int mul = m.sole_reader(div, "Mul");
  if (mul < 0 || m.node(mul).input_size() != 2) return std::nullopt;
  const std::string& gamma = m.other_input(mul, m.node(div).output(0));
  const int add = m.sole_reader(mul, "Add");
  if (add < 0 || m.node(add).input_size() != 2) return std::nullopt;
  const std::string& beta = m.other_input(add, m.node(mul).output(0));
  if (!m.constant(gamma) || !m.constant(beta)) return std::nullopt;
  const onnx::NodeProto& first = m.node(mean);
  return Rewrite{{mean, sub, pow, var, add_eps, sqrt, div, mul, add},
                 first.name().empty() ? first.output(0) : first.name(),
                 "LayerNormalization",
                 {x, gamma, beta},
                 {m.node(add).output(0)},
                 {{"axis", *axis}},
                 {{"epsilon", static_cast<float>(eps->float_at(0))}}};
}

}  // namespace

int fuse_layer_norm(onnx::GraphProto& graph) {
  std::vector<Rewrite> rewrites;
  {
    const GraphMatcher m(graph);
    for (int i = 0; i < m.num_nodes(); ++i) {
      if (m.node(i).op_type() != "ReduceMean") continue;
      if (std::optional<Rewrite> r = match_at(m, i)) rewrites.push_back(std::move(*r));
    }
  }
  return apply_rewrites(graph, rewrites);
}

}  // namespace tensorperf::ir::onnx_import
