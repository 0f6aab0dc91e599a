#include "runtime/layout_copies.h"

#include <set>

#include "runtime/layout_kernels.h"

namespace tensorperf::runtime {

std::vector<LayoutCopy> estimate_layout_copies(const ir::Graph& g,
                                               std::span<const std::pair<ir::FusedOp, ir::Workload>> fused,
                                               std::span<const ir::NodeId> channels_last_concats) {
  const size_t num_values = g.values().size();
  std::vector<bool> written(num_values, false);  // written by a step: a kernel or a copying layout op
  std::vector<bool> view(num_values, false);     // a view of another value's memory
  std::vector<bool> placed(num_values, false);   // a part of a concat that moves nothing
  for (const auto& [f, w] : fused) {
    const ir::Node& last = g.node(f.fused.empty() ? f.anchor : f.fused.back());
    if (!last.outputs.empty()) written[static_cast<size_t>(last.outputs[0])] = true;
  }
  const std::set<ir::NodeId> channels_last(channels_last_concats.begin(), channels_last_concats.end());
  std::vector<ir::NodeId> order = g.topo_order().value();
  std::vector<bool> copies(g.nodes().size(), false);
  for (ir::NodeId id : order) {
    const ir::Node& n = g.node(id);
    if (ir::op_category(n.op) != ir::OpCategory::kLayout || n.op == ir::OpKind::kConcat) continue;
    bool views = is_alias_layout(n.op);
    if (n.op == ir::OpKind::kSplit) {
      const ir::TensorType& t = g.type(n.inputs[0]);
      views = outer_extent(t.shape, normalized_axis(n.attrs.get_int("axis", 0), t.rank())) == 1;
    }
    for (ir::ValueId o : n.outputs) (views ? view : written)[static_cast<size_t>(o)] = true;
    copies[static_cast<size_t>(id)] = !views;
  }
  // Concats, outermost first, as the executor places them.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const ir::Node& n = g.node(*it);
    if (n.op != ir::OpKind::kConcat || n.outputs.empty()) continue;
    if (channels_last.count(*it)) {
      written[static_cast<size_t>(n.outputs[0])] = true;
      copies[static_cast<size_t>(*it)] = true;
      continue;
    }
    const ir::TensorType& t = g.type(n.outputs[0]);
    bool in_place = outer_extent(t.shape, normalized_axis(n.attrs.get_int("axis", 1), t.rank())) == 1;
    std::set<ir::ValueId> seen;
    for (ir::ValueId v : n.inputs) {
      const ir::Value& value = g.value(v);
      const bool node_output = value.kind == ir::ValueKind::kNodeOutput;
      const bool concat_output = node_output && g.node(value.producer).op == ir::OpKind::kConcat;
      const size_t i = static_cast<size_t>(v);
      in_place =
          in_place && node_output && (written[i] || concat_output) && !placed[i] && !view[i] && seen.insert(v).second;
    }
    if (in_place) {
      for (ir::ValueId v : n.inputs) placed[static_cast<size_t>(v)] = true;
    } else {
      written[static_cast<size_t>(n.outputs[0])] = true;
      copies[static_cast<size_t>(*it)] = true;
    }
  }
  std::vector<LayoutCopy> out;
  for (ir::NodeId id : order) {
    if (!copies[static_cast<size_t>(id)]) continue;
    const ir::Node& n = g.node(id);
    int64_t bytes = 0;
    for (ir::ValueId o : n.outputs) bytes += g.type(o).num_bytes();
    out.push_back({id, 2 * bytes, channels_last.count(id) > 0});
  }
  return out;
}

double copy_seconds(int64_t bytes, double bandwidth_gbs) {
  if (bytes <= 0 || bandwidth_gbs <= 0) return 0;
  return static_cast<double>(bytes) / (bandwidth_gbs * 1e9);
}

}  // namespace tensorperf::runtime
