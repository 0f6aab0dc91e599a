#include "graphsched/schedule_build.h"

#include <algorithm>
#include <map>
#include <set>

namespace tensorperf::graphsched {

runtime::StageSchedule make_schedule(const OpGraph& g, const SearchResult& r, int threads) {
  runtime::StageSchedule s;
  s.threads = threads;
  s.latency_ms = r.cost_s * 1e3;
  for (const StageChoice& c : r.stages) {
    runtime::Stage stage;
    if (c.merged) {
      runtime::MergeSpec m;
      m.name = "merge:";
      for (size_t i = 0; i < c.groups[0].size(); ++i) {
        m.ops.push_back(g.names[c.groups[0][i]]);
        m.name += (i ? "+" : "") + g.names[c.groups[0][i]];
      }
      stage.groups.push_back(runtime::StageGroup{threads, {m.name}});
      s.merges.push_back(std::move(m));
    } else {
      for (size_t k = 0; k < c.groups.size(); ++k) {
        runtime::StageGroup group;
        group.threads = c.threads[k];
        for (int v : c.groups[k]) group.ops.push_back(g.names[v]);
        stage.groups.push_back(std::move(group));
      }
    }
    s.stages.push_back(std::move(stage));
  }
  return s;
}

Result<MergedOps> merged_ops(const OpGraph& g, const runtime::StageSchedule& s) {
  std::map<std::string, int> index;
  for (int v = 0; v < g.size(); ++v) index[g.names[v]] = v;
  std::vector<int> merge_of(g.size(), -1);
  for (size_t m = 0; m < s.merges.size(); ++m)
    for (const std::string& op : s.merges[m].ops) {
      auto it = index.find(op);
      if (it == index.end())
        return Status::InvalidArgument("merge '" + s.merges[m].name + "' names operator '" + op +
                                       "', which this graph does not have");
      if (merge_of[it->second] >= 0) return Status::InvalidArgument("operator '" + op + "' is merged twice");
      merge_of[it->second] = static_cast<int>(m);
    }
  MergedOps out;
  std::vector<int> new_index(g.size(), -1), merge_index(s.merges.size(), -1);
  for (int v = 0; v < g.size(); ++v) {
    const int m = merge_of[v];
    if (m < 0) {
      new_index[v] = static_cast<int>(out.names.size());
      out.names.push_back(g.names[v]);
    } else {
      if (merge_index[m] < 0) {
        merge_index[m] = static_cast<int>(out.names.size());
        out.names.push_back(s.merges[m].name);
      }
      new_index[v] = merge_index[m];
    }
  }
  out.preds.assign(out.names.size(), {});
  for (int v = 0; v < g.size(); ++v) {
    std::set<int> p(out.preds[new_index[v]].begin(), out.preds[new_index[v]].end());
    for (int u : g.preds[v])
      if (new_index[u] != new_index[v]) p.insert(new_index[u]);
    out.preds[new_index[v]].assign(p.begin(), p.end());
  }
  return out;
}

}  // namespace tensorperf::graphsched
