#include "runtime/layout_chains.h"

#include <algorithm>

namespace tensorperf::runtime {

std::vector<ChainedIo> estimate_chained_io(const ir::Graph& g,
                                           std::span<const std::pair<ir::FusedOp, ir::Workload>> fused,
                                           std::span<const std::string> layouts) {
  std::vector<ChainedIo> out(fused.size());
  std::vector<int> owner(g.nodes().size(), -1);  // node -> the fused op it belongs to
  for (size_t i = 0; i < fused.size(); ++i) {
    owner[static_cast<size_t>(fused[i].first.anchor)] = static_cast<int>(i);
    for (ir::NodeId n : fused[i].first.fused) owner[static_cast<size_t>(n)] = static_cast<int>(i);
  }
  const std::vector<std::vector<ir::NodeId>> consumers = g.consumers();
  const std::vector<ir::ValueId>& graph_outputs = g.outputs();
  for (size_t i = 0; i < fused.size(); ++i) {
    if (layouts[i].empty()) continue;
    const ir::FusedOp& f = fused[i].first;
    const ir::Node& last = g.node(f.fused.empty() ? f.anchor : f.fused.back());
    if (last.outputs.empty()) continue;
    const ir::ValueId v = last.outputs[0];
    if (std::find(graph_outputs.begin(), graph_outputs.end(), v) != graph_outputs.end()) continue;
    const std::vector<ir::NodeId>& readers = consumers[static_cast<size_t>(v)];
    // Every reader: the anchor of a kernel of the same family reading v as its activation input,
    // or the residual add of such a kernel's epilogue (the kernel's sum input takes its output's
    // layout).
    std::vector<size_t> chained_inputs;
    bool agree = !readers.empty();
    for (ir::NodeId r : readers) {
      const int j = owner[static_cast<size_t>(r)];
      if (j < 0 || static_cast<size_t>(j) == i || layouts[static_cast<size_t>(j)] != layouts[i]) {
        agree = false;
        break;
      }
      const ir::Node& node = g.node(r);
      if (r == fused[static_cast<size_t>(j)].first.anchor) {
        for (size_t k = 0; k < node.inputs.size(); ++k)
          if (node.inputs[k] == v && k != 0) agree = false;
        chained_inputs.push_back(static_cast<size_t>(j));
      } else if (node.op != ir::OpKind::kAdd) {
        agree = false;
      }
      if (!agree) break;
    }
    if (!agree) continue;
    out[i].output = true;
    for (size_t j : chained_inputs) out[j].input = true;
  }
  return out;
}

}  // namespace tensorperf::runtime
