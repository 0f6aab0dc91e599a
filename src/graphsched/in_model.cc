#include "graphsched/in_model.h"

#include <algorithm>
#include <map>
#include <string>

namespace tensorperf::graphsched {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

Result<std::vector<StageInModel>> profile_in_model(runtime::Executor& e, const runtime::StageSchedule& s,
                                                   const OpGraph& ops, int threads, int runs) {
  if (runs < 1) return Status::InvalidArgument("profile_in_model needs at least one run");
  std::map<std::string, int> index;
  for (int i = 0; i < ops.size(); ++i) index[ops.names[i]] = i;
  std::map<std::string, std::vector<std::string>> merged;
  for (const runtime::MergeSpec& m : s.merges) merged[m.name] = m.ops;
  std::map<std::string, int> threads_of;
  for (const runtime::Stage& st : s.stages)
    for (const runtime::StageGroup& grp : st.groups)
      for (const std::string& op : grp.ops) threads_of[op] = grp.threads;

  const auto stages = e.stages();
  std::vector<std::vector<double>> seconds(stages.size());
  std::vector<double> once;
  TP_RETURN_IF_ERROR(e.run_stages_timed(once));  // untimed: weights packed, pages touched
  for (int r = 0; r < runs; ++r) {
    once.clear();
    TP_RETURN_IF_ERROR(e.run_stages_timed(once));
    for (size_t k = 0; k < once.size() && k < seconds.size(); ++k) seconds[k].push_back(once[k]);
  }
  std::vector<StageInModel> out;
  for (size_t k = 0; k < stages.size(); ++k) {
    StageInModel m;
    for (const std::vector<int>& group : stages[k]) {
      std::vector<int> members;
      int t = threads;
      for (int step : group) {
        const std::string& name = e.steps()[step].name;
        if (auto it = merged.find(name); it != merged.end()) {
          m.stage.merged = true;
          for (const std::string& op : it->second)
            if (auto i = index.find(op); i != index.end()) members.push_back(i->second);
        } else if (auto i = index.find(name); i != index.end()) {
          members.push_back(i->second);
          if (auto th = threads_of.find(name); th != threads_of.end()) t = th->second;
        } else {
          m.placed.push_back(e.steps()[step].op);
        }
      }
      std::sort(members.begin(), members.end());
      if (members.empty()) continue;
      m.stage.groups.push_back(std::move(members));
      m.stage.threads.push_back(m.stage.merged ? threads : t);
    }
    if (m.stage.groups.empty()) continue;
    m.model_s = median(seconds[k]);
    out.push_back(std::move(m));
  }
  return out;
}

Result<double> InModelFactors::ops_factor(const StageChoice& c, const OpCostFn& op_cost) const {
  double weighted = 0, total = 0;
  for (size_t g = 0; g < c.groups.size(); ++g)
    for (int v : c.groups[g]) {
      TP_ASSIGN_OR_RETURN(double t, op_cost(v, c.threads[g]));
      const double f = v >= 0 && static_cast<size_t>(v) < op.size() ? op[v] : 1.0;
      weighted += f * t;
      total += t;
    }
  return total > 0 ? weighted / total : 1.0;
}

const double* InModelFactors::model_time(const StageChoice& c) const {
  if (c.merged || c.groups.size() < 2 || stages.empty()) return nullptr;
  auto it = stages.find(stage_key(c));
  return it == stages.end() ? nullptr : &it->second;
}

Result<double> InModelFactors::cost(const StageChoice& c, double alone_s, const OpCostFn& op_cost) const {
  if (const double* known = model_time(c)) return *known;
  const bool several = !c.merged && c.groups.size() > 1;
  TP_ASSIGN_OR_RETURN(double f, ops_factor(c, op_cost));
  return alone_s * f * (several ? concurrent : 1.0);
}

Result<InModelFactors> fit_in_model(int num_ops, int threads, const std::vector<StageInModel>& sequential,
                                    const std::vector<std::vector<StageInModel>>& found,
                                    const StageCostFn& alone, const OpCostFn& op_cost) {
  InModelFactors f;
  f.op.assign(num_ops, 1.0);
  for (const StageInModel& m : sequential) {
    if (m.stage.merged || m.stage.groups.size() != 1 || m.stage.groups[0].size() != 1) continue;
    const int v = m.stage.groups[0][0];
    if (v < 0 || v >= num_ops) return Status::InvalidArgument("a profiled stage names operator " + std::to_string(v) +
                                                              " of " + std::to_string(num_ops));
    TP_ASSIGN_OR_RETURN(double t, op_cost(v, threads));
    if (t > 0 && m.model_s > 0) f.op[v] = std::clamp(m.model_s / t, kMinOpFactor, kMaxOpFactor);
  }
  std::vector<double> seq_model(num_ops, 0.0);  // each operator's time in the sequential profile
  for (const StageInModel& m : sequential)
    if (!m.stage.merged && m.stage.groups.size() == 1 && m.stage.groups[0].size() == 1)
      seq_model[m.stage.groups[0][0]] = m.model_s;
  // Each distinct concurrent stage once: the mean of its profiles.
  std::unordered_map<std::string, std::pair<StageChoice, std::vector<double>>> seen;
  std::vector<std::string> order;
  for (const std::vector<StageInModel>& profile : found)
    for (const StageInModel& m : profile) {
      if (m.stage.merged || m.stage.groups.size() < 2 || m.model_s <= 0) continue;
      for (const std::vector<int>& g : m.stage.groups)
        for (int v : g)
          if (v < 0 || v >= num_ops)
            return Status::InvalidArgument("a profiled stage names operator " + std::to_string(v) + " of " +
                                           std::to_string(num_ops));
      const std::string key = stage_key(m.stage);
      auto [it, fresh] = seen.try_emplace(key, m.stage, std::vector<double>{});
      if (fresh) order.push_back(key);
      it->second.second.push_back(m.model_s);
    }
  double in_model = 0, predicted = 0;
  for (const std::string& key : order) {
    const auto& [c, times] = seen.at(key);
    double model_s = 0;
    for (double t : times) model_s += t / times.size();
    TP_ASSIGN_OR_RETURN(double a, alone(c));
    TP_ASSIGN_OR_RETURN(double w, f.ops_factor(c, op_cost));
    if (a <= 0) continue;
    f.stages[key] = model_s;
    in_model += model_s;
    predicted += a * w;
    ++f.concurrent_stages;
    double ops_in_sequence = 0;
    bool all = true;
    for (const std::vector<int>& g : c.groups)
      for (int v : g) {
        all &= seq_model[v] > 0;
        ops_in_sequence += seq_model[v];
      }
    f.losing_stages += all && model_s > ops_in_sequence;
  }
  if (predicted > 0) f.concurrent = in_model / predicted;
  return f;
}

}  // namespace tensorperf::graphsched
