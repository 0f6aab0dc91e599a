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

Result<ProgramFeatures> isolated_loop_nest_features(const ir::Workload& w, const kernels::Config& config,
                                                    const std::string& target, double timeout_s) {
  WorkerOutcome out = run_worker(
      [&](const SendFn& send) {
        Result<kernels::LoopNest> nest = kernels::lower(w, config, target);
        if (!nest.ok()) {
          send({{"error", nest.status().message()}, {"code", code_name(nest.status().code())}});
          return;
        }
        send(to_message(loop_nest_features(*nest)));
      },
      {timeout_s});
  if (out.messages.empty()) {
    const std::string what = "lowering " + config.knobs.dump() + " of " + w.key() + " for " + target + " ";
    if (out.ending == WorkerOutcome::Ending::kTimedOut) return Status::Timeout(what + "timed out");
    return Status::Internal(what + "crashed in Halide: " + out.describe());
  }
  const nlohmann::json& m = out.messages.front();
  if (m.contains("error")) return status_from(m.value("code", ""), m.value("error", ""));
  return from_message(m);
}

}  // namespace tensorperf::features
