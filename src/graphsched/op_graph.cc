#include "graphsched/op_graph.h"

#include <algorithm>
#include <functional>

namespace tensorperf::graphsched {

OpGraph OpGraph::from_executor(const runtime::Executor& e) {
  OpGraph g;
  for (const runtime::StepInfo& s : e.steps()) {
    g.names.push_back(s.name);
    g.kinds.push_back(s.op);
    g.workloads.push_back(s.workload);
  }
  g.preds = e.step_predecessors();
  g.succs.assign(g.names.size(), {});
  for (int v = 0; v < g.size(); ++v)
    for (int u : g.preds[v]) g.succs[u].push_back(v);
  return g;
}

Result<OpGraph> OpGraph::from_edges(int n, const std::vector<std::pair<int, int>>& edges) {
  OpGraph g;
  for (int i = 0; i < n; ++i) {
    g.names.push_back("op" + std::to_string(i));
    g.kinds.push_back("op");
    g.workloads.push_back("w" + std::to_string(i));
  }
  g.preds.assign(n, {});
  g.succs.assign(n, {});
  for (auto [u, v] : edges) {
    if (u < 0 || v >= n || u >= v) return Status::InvalidArgument("edge " + std::to_string(u) + "->" + std::to_string(v) + " is not forward");
    g.preds[v].push_back(u);
    g.succs[u].push_back(v);
  }
  return g;
}

namespace {

// Edges crossing the boundary after position k of [begin, end).
int crossing(const OpGraph& g, int begin, int end, int k) {
  int n = 0;
  for (int u = begin; u <= k; ++u)
    for (int v : g.succs[u]) n += v > k && v < end;
  return n;
}

void split(const OpGraph& g, int begin, int end, int max_block, std::vector<std::vector<int>>& out) {
  if (end - begin <= max_block) {
    std::vector<int> b;
    for (int i = begin; i < end; ++i) b.push_back(i);
    out.push_back(std::move(b));
    return;
  }
  int best = -1, best_cross = 0, best_dist = 0;
  const int mid = (begin + end) / 2;
  for (int k = begin; k < end - 1; ++k) {
    const int c = crossing(g, begin, end, k), d = std::abs(k - mid);
    if (best < 0 || c < best_cross || (c == best_cross && d < best_dist)) best = k, best_cross = c, best_dist = d;
  }
  split(g, begin, best + 1, max_block, out);
  split(g, best + 1, end, max_block, out);
}

// The ranges [begin, end) between cut operators (each ending at its cut, the last at the graph's
// end). A cut: every operator before it reaches it and it reaches every one after.
std::vector<std::pair<int, int>> cut_ranges(const OpGraph& g) {
  const int n = g.size();
  // Cut k: the ops before it are all its ancestors and the ops after it all its descendants, i.e.
  // every op before k reaches k (has a path to it) and k reaches every op after it.
  // Reachability counts, in one pass each way: `first_unreached_after[k]`.
  std::vector<bool> cut(n, false);
  for (int k = 0; k < n; ++k) {
    std::vector<bool> down(n, false), up(n, false);
    down[k] = up[k] = true;
    for (int v = k + 1; v < n; ++v)
      for (int u : g.preds[v])
        if (down[u]) down[v] = true;
    for (int u = k - 1; u >= 0; --u)
      for (int v : g.succs[u])
        if (up[v]) up[u] = true;
    cut[k] = std::all_of(down.begin() + k, down.end(), [](bool b) { return b; }) &&
             std::all_of(up.begin(), up.begin() + k + 1, [](bool b) { return b; });
  }
  std::vector<std::pair<int, int>> ranges;
  for (int k = 0, begin = 0; k < n; ++k)
    if (cut[k] || k == n - 1) ranges.push_back({begin, k + 1}), begin = k + 1;
  return ranges;
}

}  // namespace

std::vector<std::vector<int>> partition_blocks(const OpGraph& g, int max_block) {
  std::vector<std::vector<int>> blocks;
  for (auto [begin, end] : cut_ranges(g)) split(g, begin, end, std::max(max_block, 1), blocks);
  return blocks;
}

Contraction contract_long_chains(const OpGraph& g, int max_block) {
  const int n = g.size();
  // Whether each operator lies in a range between cuts too long for a block, and which range.
  std::vector<int> range(n, 0);
  std::vector<bool> long_range(n, false);
  const std::vector<std::pair<int, int>> ranges = cut_ranges(g);
  for (size_t r = 0; r < ranges.size(); ++r)
    for (int k = ranges[r].first; k < ranges[r].second; ++k)
      range[k] = static_cast<int>(r), long_range[k] = ranges[r].second - ranges[r].first > max_block;
  auto joins = [&](int v) {  // v continues its only predecessor's chain
    if (g.preds[v].size() != 1) return false;
    const int u = g.preds[v][0];
    return g.succs[u].size() == 1 && range[u] == range[v] && long_range[v];
  };
  Contraction c;
  std::vector<int> unit(n, -1);
  for (int v = 0; v < n; ++v) {
    if (joins(v)) {
      unit[v] = unit[g.preds[v][0]];
      c.members[unit[v]].push_back(v);
      ++c.contracted;
      continue;
    }
    unit[v] = static_cast<int>(c.members.size());
    c.members.push_back({v});
    c.units.names.push_back(g.names[v]);
    c.units.kinds.push_back(g.kinds[v]);
    c.units.workloads.push_back(g.workloads[v]);
  }
  const int m = static_cast<int>(c.members.size());
  c.units.preds.assign(m, {});
  c.units.succs.assign(m, {});
  for (int u = 0; u < m; ++u)
    for (int p : g.preds[c.members[u].front()]) {
      c.units.preds[u].push_back(unit[p]);
      c.units.succs[unit[p]].push_back(u);
    }
  c.units.fingerprint = g.fingerprint;
  return c;
}

}  // namespace tensorperf::graphsched
