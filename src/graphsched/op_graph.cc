#include "graphsched/op_graph.h"

#include <algorithm>
#include <functional>
#include <tuple>

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

// Cuts [begin, end) into consecutive blocks of at most max_block operators where the fewest edges
// cross the cuts in all (the schedule cannot overlap operators across a cut; every cut costs at least
// one edge, so blocks stay few), then into the fewest blocks, then the most even sizes. (One cut at
// a time, each where fewest edges cross, peeled small blocks off the front of NASNet-A's cells.)
void split(const OpGraph& g, int begin, int end, int max_block, std::vector<std::vector<int>>& out) {
  const int n = end - begin;
  // cross[k]: edges from [begin, begin + k) to [begin + k, end), for 0 < k < n (an edge u -> v
  // crosses the boundaries after u up to v's: summed from where each starts and stops).
  std::vector<int> cross(n + 1, 0);
  for (int u = begin; u < end; ++u)
    for (int v : g.succs[u])
      if (v < end) ++cross[u - begin + 1], --cross[v - begin + 1];
  for (int k = 1; k <= n; ++k) cross[k] += cross[k - 1];
  // best[j]: the best split of the first j operators, as (crossing edges, blocks, sum of squared
  // sizes), and where its last block starts.
  struct Split {
    int blocks = 0;
    int64_t crossing = 0, squares = 0;
    int from = -1;
    bool operator<(const Split& o) const {
      return std::tie(crossing, blocks, squares) < std::tie(o.crossing, o.blocks, o.squares);
    }
  };
  std::vector<Split> best(n + 1);
  best[0].from = 0;
  for (int j = 1; j <= n; ++j) {
    for (int i = std::max(0, j - max_block); i < j; ++i) {
      Split c{best[i].blocks + 1, best[i].crossing + (i > 0 ? cross[i] : 0),
              best[i].squares + int64_t{j - i} * (j - i), i};
      if (best[j].from < 0 || c < best[j]) best[j] = c;
    }
  }
  std::vector<std::vector<int>> blocks;
  for (int j = n; j > 0; j = best[j].from) {
    std::vector<int> b;
    for (int i = best[j].from; i < j; ++i) b.push_back(begin + i);
    blocks.push_back(std::move(b));
  }
  out.insert(out.end(), std::make_move_iterator(blocks.rbegin()), std::make_move_iterator(blocks.rend()));
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
