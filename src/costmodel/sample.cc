#include "costmodel/sample.h"

#include <algorithm>
#include <cmath>

#include "measure/device.h"

namespace tensorperf::costmodel {

size_t program_column(const std::string& name) {
  const std::vector<std::string>& names = features::pooled_feature_names();
  return static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

size_t device_column(const std::string& name) {
  const std::vector<std::string>& names = measure::device_feature_names();
  return static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

std::vector<Result<Sample>> make_samples(const ir::Workload& w, std::span<const kernels::Config> configs,
                                         const std::string& target, const std::vector<double>& device_features,
                                         const std::string& device_key, bool chained) {
  std::vector<features::ProgramRef> programs;
  for (const kernels::Config& c : configs) programs.push_back({w, c, target, chained});
  std::vector<Result<features::ProgramFeatures>> f = features::program_features(programs);
  std::vector<Result<Sample>> out;
  for (size_t i = 0; i < f.size(); ++i) {
    if (!f[i].ok()) {
      out.push_back(f[i].status());
      continue;
    }
    Sample s;
    s.program = std::move(f[i]->pooled);
    s.leaves = std::move(f[i]->leaves);
    s.positions = std::move(f[i]->positions);
    s.device.assign(device_features.begin(), device_features.end());
    s.workload = w.key();
    s.device_key = device_key;
    s.provider = configs[i].provider;
    s.config = configs[i].knobs.dump();
    s.chained = chained;
    out.push_back(std::move(s));
  }
  return out;
}

Result<Sample> make_sample(const ir::Workload& w, const kernels::Config& config, const std::string& target,
                           const std::vector<double>& device_features, const std::string& device_key,
                           bool chained) {
  return std::move(
      make_samples(w, std::span<const kernels::Config>(&config, 1), target, device_features, device_key, chained)
          .front());
}

Status check_training_set(std::span<const Sample> train) {
  if (train.empty()) return Status::InvalidArgument("no training samples");
  for (const Sample& s : train)
    if (!(s.seconds > 0) || !std::isfinite(s.seconds))
      return Status::InvalidArgument("a training sample of " + s.workload + " has no measured latency");
  return Status::Ok();
}

}  // namespace tensorperf::costmodel
