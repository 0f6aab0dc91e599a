#include "costmodel/sample.h"

#include <cmath>

namespace tensorperf::costmodel {

Result<Sample> make_sample(const ir::Workload& w, const kernels::Config& config, const std::string& target,
                           const std::vector<double>& device_features, const std::string& device_key) {
  TP_ASSIGN_OR_RETURN(features::ProgramFeatures f, features::program_features(w, config, target));
  Sample s;
  s.program = std::move(f.pooled);
  s.leaves = std::move(f.leaves);
  s.positions = std::move(f.positions);
  s.device.assign(device_features.begin(), device_features.end());
  s.workload = w.key();
  s.device_key = device_key;
  s.provider = config.provider;
  return s;
}

Status check_training_set(std::span<const Sample> train) {
  if (train.empty()) return Status::InvalidArgument("no training samples");
  for (const Sample& s : train)
    if (!(s.seconds > 0) || !std::isfinite(s.seconds))
      return Status::InvalidArgument("a training sample of " + s.workload + " has no measured latency");
  return Status::Ok();
}

}  // namespace tensorperf::costmodel
