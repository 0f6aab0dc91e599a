#include "tune/transfer.h"

#include <algorithm>
#include <limits>

#include "measure/record.h"
#include "features/workload_features.h"

namespace tensorperf::tune {

Result<TransferPool> TransferPool::load(db::RecordStore& store, const std::set<ir::OpKind>& ops,
                                        const std::string& provider) {
  TransferPool pool;
  TP_ASSIGN_OR_RETURN(std::vector<db::WorkloadSummary> workloads, store.workloads());
  for (const db::WorkloadSummary& ws : workloads) {
    auto w = ir::parse_workload_key(ws.key);
    if (!w.ok() || !ops.count(w->op)) continue;  // TVM workloads and other op kinds
    auto& groups = pool.by_op_[w->op];
    db::ScanFilter filter;
    filter.workload_key = ws.key;
    filter.format = db::RecordFormat::kNative;
    filter.with_config = false;
    TP_RETURN_IF_ERROR(store.scan(filter, [&](const db::StoredRecord& s) -> Status {
      auto r = measure::record_from_line(s.line);
      if (!r.ok() || r->provider != provider) return Status::Ok();
      double cost = r->ok() ? r->mean_cost() : std::numeric_limits<double>::infinity();
      groups[{ws.key, r->device_key}].push_back({std::move(r->config), cost});
      return Status::Ok();
    }));
  }
  return pool;
}

size_t TransferPool::records() const {
  size_t n = 0;
  for (const auto& [op, groups] : by_op_)
    for (const auto& [key, entries] : groups) n += entries.size();
  return n;
}

std::vector<TransferGroup> TransferPool::groups_for(const ir::Workload& w, const std::string& device_key,
                                                    const kernels::Provider& provider, size_t max_rows) const {
  std::vector<TransferGroup> out;
  auto op = by_op_.find(w.op);
  if (op == by_op_.end()) return out;
  const std::string own = w.key();
  const size_t width = features::task_feature_width() + SearchSpace::of(w, provider).feature_width();
  for (const auto& [key, entries] : op->second) {
    if (key.first == own && key.second == device_key) continue;
    auto other = ir::parse_workload_key(key.first);
    if (!other.ok() || !provider.supports(*other)) continue;
    const SearchSpace space = SearchSpace::of(*other, provider);
    if (features::task_feature_width() + space.feature_width() != width) continue;  // another layout of knobs
    std::vector<float> row = features::workload_features(*other);
    for (float d : features::device_key_features(key.second)) row.push_back(d);
    const size_t prefix = row.size();
    row.resize(width);
    TransferGroup g;
    for (const Entry& e : entries) {
      auto p = space.point_of(e.config);
      if (!p) continue;
      space.features(*p, row.data() + prefix);
      g.rows.insert(g.rows.end(), row.begin(), row.end());
      g.costs.push_back(e.cost);
    }
    if (g.costs.size() >= 2) out.push_back(std::move(g));
  }
  // Over the budget: cut the largest groups down until the rows fit.
  size_t rows = 0;
  for (const auto& g : out) rows += g.costs.size();
  while (rows > max_rows) {
    auto largest = std::max_element(out.begin(), out.end(),
                                    [](const TransferGroup& a, const TransferGroup& b) { return a.costs.size() < b.costs.size(); });
    size_t cut = std::min(largest->costs.size() / 2, rows - max_rows);
    if (cut == 0) break;
    largest->costs.resize(largest->costs.size() - cut);
    largest->rows.resize(largest->costs.size() * width);
    rows -= cut;
  }
  return out;
}

}  // namespace tensorperf::tune
