#include "costmodel/input_reuse.h"

#include <functional>
#include <map>
#include <set>

#include "costmodel/weight_stream.h"

namespace tensorperf::costmodel {

Result<std::vector<std::vector<InputReuse>>> input_reuse(
    const ir::Graph& g, const std::vector<std::pair<ir::FusedOp, ir::Workload>>& fused) {
  TP_ASSIGN_OR_RETURN(std::vector<ir::NodeId> order, g.topo_order());
  std::map<ir::NodeId, size_t> position;
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  // The step a node belongs to: a fused operator runs at its last node.
  std::map<ir::NodeId, size_t> step_of;  // node -> fused index
  std::vector<size_t> at(fused.size());  // fused index -> position of its step
  for (size_t i = 0; i < fused.size(); ++i) {
    const ir::FusedOp& f = fused[i].first;
    step_of[f.anchor] = i;
    for (ir::NodeId n : f.fused) step_of[n] = i;
    at[i] = position.at(f.fused.empty() ? f.anchor : f.fused.back());
  }
  // Bytes touched at each position: a fused step's output and weights; layout ops move no new data
  // into the count (their copies re-read what a step wrote).
  std::vector<double> touched(order.size(), 0.0);
  for (size_t i = 0; i < fused.size(); ++i) {
    const ir::FusedOp& f = fused[i].first;
    const ir::Node& tail = g.node(f.fused.empty() ? f.anchor : f.fused.back());
    double bytes = weight_bytes(fused[i].second);
    for (ir::ValueId v : tail.outputs) bytes += static_cast<double>(g.type(v).num_bytes());
    touched[at[i]] += bytes;
  }
  std::vector<double> prefix(order.size() + 1, 0.0);  // prefix[p]: touched before position p
  for (size_t p = 0; p < order.size(); ++p) prefix[p + 1] = prefix[p] + touched[p];

  std::vector<std::vector<InputReuse>> out(fused.size());
  for (size_t i = 0; i < fused.size(); ++i) {
    const ir::FusedOp& f = fused[i].first;
    std::set<ir::NodeId> own(f.fused.begin(), f.fused.end());
    own.insert(f.anchor);
    // Where a value's data was written: the step of its producer, through layout ops to theirs.
    std::function<void(ir::ValueId, double)> add = [&](ir::ValueId v, double bytes) {
      const ir::Value& val = g.value(v);
      if (val.kind != ir::ValueKind::kNodeOutput || val.producer == ir::kNoNode) return;
      if (own.count(val.producer)) return;  // computed inside this step
      const ir::Node& p = g.node(val.producer);
      if (auto s = step_of.find(val.producer); s != step_of.end()) {
        const size_t written = at[s->second];
        const double distance = prefix[at[i]] - prefix[written + 1];
        out[i].push_back({bytes, std::max(distance, 0.0)});
        return;
      }
      if (ir::op_category(p.op) != ir::OpCategory::kLayout) return;  // not a step (cannot happen)
      double in_bytes = 0;
      for (ir::ValueId u : p.inputs)
        if (g.value(u).kind == ir::ValueKind::kNodeOutput) in_bytes += static_cast<double>(g.type(u).num_bytes());
      for (ir::ValueId u : p.inputs) {
        if (g.value(u).kind != ir::ValueKind::kNodeOutput || !(in_bytes > 0)) continue;
        // A view or concat reads all of its inputs; a slice or split only its share of them.
        const double share = std::min(1.0, bytes / in_bytes);
        add(u, share * static_cast<double>(g.type(u).num_bytes()));
      }
    };
    std::vector<ir::NodeId> nodes{f.anchor};
    nodes.insert(nodes.end(), f.fused.begin(), f.fused.end());
    for (ir::NodeId n : nodes)
      for (ir::ValueId v : g.node(n).inputs) add(v, static_cast<double>(g.type(v).num_bytes()));
  }
  return out;
}

double cold_input_seconds(const std::vector<InputReuse>& inputs, double cache_bytes, double mem_bandwidth_gbs) {
  if (!(cache_bytes > 0) || !(mem_bandwidth_gbs > 0)) return 0;
  double bytes = 0;
  for (const InputReuse& r : inputs)
    if (r.distance > cache_bytes) bytes += r.bytes;
  return bytes / (mem_bandwidth_gbs * 1e9);
}

}  // namespace tensorperf::costmodel
