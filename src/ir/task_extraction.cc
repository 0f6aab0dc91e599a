#include "ir/task_extraction.h"

#include <algorithm>
#include <map>

namespace tensorperf::ir {

namespace {

bool is_activation(OpKind op) {
  return op == OpKind::kRelu || op == OpKind::kRelu6 || op == OpKind::kSigmoid || op == OpKind::kTanh ||
         op == OpKind::kGelu;
}

// The dimension that carries an anchor's output channels: 1 for conv2d (NCHW), the last otherwise.
int64_t channel_dim(OpKind anchor, const TensorType& out) { return anchor == OpKind::kConv2d ? 1 : out.rank() - 1; }

// Is `c` (a constant) a per-channel bias for the anchor's output `out`?
bool is_channel_bias(OpKind anchor, const TensorType& c, const TensorType& out) {
  if (c.rank() > out.rank()) return false;
  int64_t ch = channel_dim(anchor, out);
  int64_t offset = out.rank() - c.rank();
  for (int64_t d = 0; d < c.rank(); ++d) {
    int64_t od = d + offset;
    int64_t want = od == ch ? out.shape[od] : 1;
    if (c.shape[d] != want) return false;
  }
  return ch >= offset;  // the channel dim is present in the constant
}

class Fuser {
 public:
  explicit Fuser(const Graph& g) : g_(g), users_(g.consumers()), taken_(g.nodes().size(), false) {
    for (ValueId v : g.outputs()) is_output_.push_back(v);
  }

  Result<std::vector<std::pair<FusedOp, Workload>>> run() {
    TP_ASSIGN_OR_RETURN(std::vector<NodeId> order, g_.topo_order());
    std::vector<size_t> position(g_.nodes().size());
    for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
    std::vector<std::pair<size_t, std::pair<FusedOp, Workload>>> groups;  // (tail position, group)
    for (NodeId id : order) {
      if (taken_[id]) continue;
      const Node& n = g_.node(id);
      if (op_category(n.op) == OpCategory::kLayout) continue;
      auto group = fuse_from(id);
      NodeId tail = group.first.fused.empty() ? id : group.first.fused.back();
      groups.push_back({position[tail], std::move(group)});
    }
    // Ordering groups by their last node is topological: a group's only value used outside it is
    // its tail's output (every intermediate has a single consumer inside the chain).
    std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::pair<FusedOp, Workload>> out;
    for (auto& [pos, group] : groups) out.push_back(std::move(group));
    return out;
  }

 private:
  bool single_use(ValueId v) const {
    return users_[v].size() == 1 && std::find(is_output_.begin(), is_output_.end(), v) == is_output_.end();
  }

  std::pair<FusedOp, Workload> fuse_from(NodeId anchor) {
    const Node& a = g_.node(anchor);
    taken_[anchor] = true;
    FusedOp fused{anchor, {}};
    Workload w;
    w.op = a.op;
    w.attrs = a.attrs;
    bool is_anchor = op_category(a.op) == OpCategory::kAnchor;
    size_t main_inputs = is_anchor ? 2 : a.inputs.size();
    for (size_t i = 0; i < main_inputs; ++i) w.inputs.push_back(g_.type(a.inputs[i]));
    if (is_anchor && a.inputs.size() == 3) w.epilogue.push_back("bias");
    ValueId cur = a.outputs[0];
    const TensorType out_type = g_.type(cur);
    while (a.outputs.size() == 1 && single_use(cur)) {
      NodeId next = users_[cur][0];
      const Node& n = g_.node(next);
      if (taken_[next] || g_.type(n.outputs[0]) != out_type) break;
      std::string ep = epilogue_for(a.op, is_anchor, n, cur, w.epilogue);
      if (ep.empty()) break;
      if (!(ep == "bias" && !w.epilogue.empty() && w.epilogue.back() == "bias")) w.epilogue.push_back(ep);
      taken_[next] = true;
      fused.fused.push_back(next);
      cur = n.outputs[0];
    }
    w.output = out_type;
    return {std::move(fused), std::move(w)};
  }

  // The epilogue op that node `n` (reading `cur`) becomes, or "" when it does not fuse.
  std::string epilogue_for(OpKind anchor, bool is_anchor, const Node& n, ValueId cur,
                           const std::vector<std::string>& ep) const {
    if (is_activation(n.op)) return std::string(op_name(n.op));
    if (!is_anchor) return "";
    bool only_bias_so_far = ep.empty() || (ep.size() == 1 && ep[0] == "bias");
    if (n.op == OpKind::kBatchNorm && anchor == OpKind::kConv2d && n.inputs[0] == cur && only_bias_so_far) {
      for (size_t i = 1; i < n.inputs.size(); ++i)
        if (!g_.is_constant(n.inputs[i])) return "";
      return "bias";  // folded into the convolution's weights and bias
    }
    if ((n.op == OpKind::kAdd || n.op == OpKind::kMul) && n.inputs.size() == 2 && n.inputs[0] != n.inputs[1]) {
      ValueId other = n.inputs[0] == cur ? n.inputs[1] : n.inputs[0];
      const TensorType& ot = g_.type(other);
      const TensorType& out = g_.type(cur);
      if (n.op == OpKind::kAdd && g_.is_constant(other) && is_channel_bias(anchor, ot, out) &&
          (ep.empty() || ep.back() == "bias"))
        return "bias";
      if (!g_.is_constant(other) && ot == out) {
        std::string name(op_name(n.op));
        if (std::find(ep.begin(), ep.end(), name) == ep.end()) return name;
      }
    }
    return "";
  }

  const Graph& g_;
  std::vector<std::vector<NodeId>> users_;
  std::vector<bool> taken_;
  std::vector<ValueId> is_output_;
};

}  // namespace

Result<std::vector<std::pair<FusedOp, Workload>>> fuse_graph(const Graph& g) { return Fuser(g).run(); }

Result<std::vector<Task>> extract_tasks(const Graph& g) {
  TP_ASSIGN_OR_RETURN(auto fused, fuse_graph(g));
  std::vector<Task> tasks;
  std::map<std::string, size_t> index;
  for (auto& [op, w] : fused) {
    std::string key = w.key();
    auto it = index.find(key);
    if (it == index.end()) {
      index.emplace(key, tasks.size());
      tasks.push_back(Task{std::move(w), 0, {}});
      it = index.find(key);
    }
    Task& t = tasks[it->second];
    ++t.count;
    t.instances.push_back(std::move(op));
  }
  return tasks;
}

}  // namespace tensorperf::ir
