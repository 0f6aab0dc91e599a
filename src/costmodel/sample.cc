#include "costmodel/sample.h"

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

}  // namespace tensorperf::costmodel
