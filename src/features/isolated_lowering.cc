#include "features/isolated_lowering.h"

#include <nlohmann/json.hpp>

#include "base/worker.h"
#include "kernels/loop_nest.h"

namespace tensorperf::features {
namespace {

Status status_from(const std::string& code, const std::string& message) {
  if (code == code_name(StatusCode::kInvalidArgument)) return Status::InvalidArgument(message);
  if (code == code_name(StatusCode::kNotFound)) return Status::NotFound(message);
  if (code == code_name(StatusCode::kUnsupported)) return Status::Unsupported(message);
  if (code == code_name(StatusCode::kIoError)) return Status::IoError(message);
  if (code == code_name(StatusCode::kCorruption)) return Status::Corruption(message);
  if (code == code_name(StatusCode::kTimeout)) return Status::Timeout(message);
  return Status::Internal(message);
}

nlohmann::json to_message(const ProgramFeatures& f) {
  nlohmann::json positions = nlohmann::json::array();
  for (const LeafPosition& p : f.positions) positions.push_back({p.preorder, p.depth, p.parent_preorder});
  return {{"kind", sample_kind_name(f.kind)}, {"leaves", f.leaves}, {"positions", positions}, {"pooled", f.pooled}};
}

Result<ProgramFeatures> from_message(const nlohmann::json& m) {
  try {
    ProgramFeatures f;
    f.kind = m.at("kind").get<std::string>() == sample_kind_name(SampleKind::kLoopNest) ? SampleKind::kLoopNest
                                                                                         : SampleKind::kKnobs;
    f.leaves = m.at("leaves").get<std::vector<std::vector<float>>>();
    for (const auto& p : m.at("positions")) f.positions.push_back({p.at(0).get<int>(), p.at(1).get<int>(), p.at(2).get<int>()});
    f.pooled = m.at("pooled").get<std::vector<float>>();
    if (f.positions.size() != f.leaves.size()) return Status::Corruption("lowering worker: positions and leaves differ");
    return f;
  } catch (const nlohmann::json::exception& e) {
    return Status::Corruption(std::string("lowering worker: ") + e.what());
  }
}

}  // namespace

std::vector<Result<ProgramFeatures>> isolated_loop_nest_features(std::span<const LoweringJob> jobs,
                                                                 double timeout_s) {
  std::vector<Result<ProgramFeatures>> out;
  out.reserve(jobs.size());
  while (out.size() < jobs.size()) {
    const size_t first = out.size();
    WorkerOutcome worker = run_worker(
        [&](const SendFn& send) {
          for (size_t i = first; i < jobs.size(); ++i) {
            Result<kernels::LoopNest> nest = kernels::lower(*jobs[i].workload, *jobs[i].config, *jobs[i].target);
            if (nest.ok()) {
              send(to_message(loop_nest_features(*nest)));
            } else {
              send({{"error", nest.status().message()}, {"code", code_name(nest.status().code())}});
            }
          }
        },
        {timeout_s});
    for (const nlohmann::json& m : worker.messages) {
      if (out.size() == jobs.size()) break;
      out.push_back(m.contains("error") ? Result<ProgramFeatures>(status_from(m.value("code", ""), m.value("error", "")))
                                        : from_message(m));
    }
    if (out.size() < jobs.size() && worker.messages.size() < jobs.size() - first) {
      // The worker ended inside the next job: that job crashed (or hung).
      const LoweringJob& j = jobs[out.size()];
      const std::string what =
          "lowering " + j.config->knobs.dump() + " of " + j.workload->key() + " for " + *j.target + " ";
      out.push_back(worker.ending == WorkerOutcome::Ending::kTimedOut
                        ? Status::Timeout(what + "timed out")
                        : Status::Internal(what + "crashed in Halide: " + worker.describe()));
    }
  }
  return out;
}

}  // namespace tensorperf::features
