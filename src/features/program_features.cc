#include "features/program_features.h"

#include <algorithm>

#include "features/isolated_lowering.h"
#include "features/knob_features.h"
#include "features/leaf_features.h"
#include "features/workload_features.h"

namespace tensorperf::features {
namespace {

const std::vector<std::string>& nest_total_names() {
  static const std::vector<std::string> n = {"leaves",       "loops",         "max_depth",   "flops",
                                             "bytes",        "unique_bytes",  "flops_per_byte", "alloc_bytes",
                                             "allocations",  "parallel_tasks"};
  return n;
}

size_t nest_offset() { return 1 + workload_feature_names().size() + knob_feature_names().size(); }

}  // namespace

const char* sample_kind_name(SampleKind kind) { return kind == SampleKind::kLoopNest ? "loop_nest" : "knobs"; }

const std::vector<std::string>& pooled_feature_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {"is_loop_nest"};
    for (const std::string& f : workload_feature_names()) n.push_back("workload." + f);
    for (const std::string& f : knob_feature_names()) n.push_back("config." + f);
    for (const std::string& f : nest_total_names()) n.push_back("nest." + f);
    for (const std::string& f : leaf_feature_names()) n.push_back("hot." + f);
    for (const std::string& f : leaf_feature_names()) n.push_back("mean." + f);
    return n;
  }();
  return names;
}

ProgramFeatures loop_nest_features(const kernels::LoopNest& nest) {
  ProgramFeatures f;
  f.kind = SampleKind::kLoopNest;
  f.pooled.assign(pooled_feature_names().size(), 0.0f);
  f.pooled[0] = 1.0f;
  const size_t width = leaf_feature_names().size();
  std::vector<float> mean(width, 0.0f);
  double flops = 0, bytes = 0, unique_bytes = 0, hot_flops = -1, parallel_tasks = 0;
  int max_depth = 0;
  size_t hot = 0;
  for (const kernels::Leaf& leaf : nest.leaves) {
    LeafContext ctx = make_leaf_context(nest, leaf);
    f.leaves.push_back(leaf_features(ctx));
    f.positions.push_back(
        {leaf.preorder, leaf.depth, leaf.parent < 0 ? -1 : nest.loops[static_cast<size_t>(leaf.parent)].preorder});
    const double leaf_f = leaf_flops(ctx);
    double leaf_bytes = 0;
    for (const BufferTouch& b : ctx.buffers) {
      leaf_bytes += b.bytes;
      unique_bytes += b.unique_bytes;
    }
    // The hottest leaf: most flops; among leaves without arithmetic (copies), most bytes.
    const double heat = leaf_f > 0 ? 1e30 + leaf_f : leaf_bytes;
    if (heat > hot_flops) {
      hot_flops = heat;
      hot = f.leaves.size() - 1;
    }
    flops += leaf_f;
    bytes += leaf_bytes;
    max_depth = std::max(max_depth, leaf.depth);
    double tasks = 1;
    bool parallel = false;
    for (int l : leaf.loops)
      if (nest.loops[static_cast<size_t>(l)].kind == kernels::LoopKind::kParallel) {
        tasks *= nest.loops[static_cast<size_t>(l)].trips;
        parallel = true;
      }
    if (parallel) parallel_tasks = std::max(parallel_tasks, tasks);
    for (size_t i = 0; i < width; ++i) mean[i] += f.leaves.back()[i];
  }
  double alloc_bytes = 0;
  for (const kernels::Allocation& a : nest.allocations) alloc_bytes += static_cast<double>(a.bytes);
  const std::vector<float> totals = {static_cast<float>(nest.leaves.size()),
                                     static_cast<float>(nest.loops.size()),
                                     static_cast<float>(max_depth),
                                     log_feature(flops),
                                     log_feature(bytes),
                                     log_feature(unique_bytes),
                                     log_feature(unique_bytes > 0 ? flops / unique_bytes : 0),
                                     log_feature(alloc_bytes),
                                     static_cast<float>(nest.allocations.size()),
                                     log_feature(parallel_tasks)};
  size_t at = nest_offset();
  std::copy(totals.begin(), totals.end(), f.pooled.begin() + static_cast<long>(at));
  at += totals.size();
  if (!f.leaves.empty()) {
    std::copy(f.leaves[hot].begin(), f.leaves[hot].end(), f.pooled.begin() + static_cast<long>(at));
    for (size_t i = 0; i < width; ++i) f.pooled[at + width + i] = mean[i] / static_cast<float>(f.leaves.size());
  }
  return f;
}

namespace {

// The workload and knob columns of the pooled vector.
void add_workload_and_knobs(const ir::Workload& w, const std::vector<float>& knobs, ProgramFeatures& f) {
  const std::vector<float> workload = workload_features(w);
  std::copy(workload.begin(), workload.end(), f.pooled.begin() + 1);
  std::copy(knobs.begin(), knobs.end(), f.pooled.begin() + 1 + static_cast<long>(workload.size()));
}

}  // namespace

std::vector<Result<ProgramFeatures>> program_features(std::span<const ProgramRef> programs) {
  std::vector<Result<ProgramFeatures>> out(programs.size(), Result<ProgramFeatures>(Status::Internal("not done")));
  std::vector<std::vector<float>> knobs(programs.size());
  std::vector<LoweringJob> jobs;
  std::vector<size_t> job_of;
  for (size_t i = 0; i < programs.size(); ++i) {
    const ProgramRef& p = programs[i];
    Result<std::vector<float>> k = knob_features(p.workload, p.config, p.chained);
    if (!k.ok()) {
      out[i] = k.status();
      continue;
    }
    knobs[i] = std::move(*k);
    if (p.config.provider == "halide") {
      jobs.push_back({&p.workload, &p.config, &p.target});
      job_of.push_back(i);
      continue;
    }
    Result<const kernels::Provider*> provider = kernels::find_provider(p.config.provider);
    Status valid = provider.ok() ? (*provider)->validate(p.workload, p.config) : provider.status();
    if (!valid.ok()) {
      out[i] = valid;
      continue;
    }
    ProgramFeatures f;
    f.pooled.assign(pooled_feature_names().size(), 0.0f);
    add_workload_and_knobs(p.workload, knobs[i], f);
    out[i] = std::move(f);
  }
  std::vector<Result<ProgramFeatures>> lowered = isolated_loop_nest_features(jobs);
  for (size_t j = 0; j < jobs.size(); ++j) {
    const size_t i = job_of[j];
    if (lowered[j].ok()) add_workload_and_knobs(programs[i].workload, knobs[i], *lowered[j]);
    out[i] = std::move(lowered[j]);
  }
  return out;
}

Result<ProgramFeatures> program_features(const ir::Workload& w, const kernels::Config& config,
                                         const std::string& target, bool chained) {
  const ProgramRef one{w, config, target, chained};
  return std::move(program_features(std::span<const ProgramRef>(&one, 1)).front());
}

nlohmann::json program_features_to_json(const ProgramFeatures& f) {
  nlohmann::json pooled = nlohmann::json::object();
  const auto& pn = pooled_feature_names();
  for (size_t i = 0; i < pn.size() && i < f.pooled.size(); ++i) pooled[pn[i]] = f.pooled[i];
  nlohmann::json leaves = nlohmann::json::array();
  const auto& ln = leaf_feature_names();
  for (size_t l = 0; l < f.leaves.size(); ++l) {
    nlohmann::json values = nlohmann::json::object();
    for (size_t i = 0; i < ln.size() && i < f.leaves[l].size(); ++i) values[ln[i]] = f.leaves[l][i];
    leaves.push_back({{"position",
                       {{"preorder", f.positions[l].preorder},
                        {"depth", f.positions[l].depth},
                        {"parent", f.positions[l].parent_preorder}}},
                      {"features", values}});
  }
  return {{"kind", sample_kind_name(f.kind)}, {"pooled", pooled}, {"leaves", leaves}};
}

}  // namespace tensorperf::features
