// A device's numeric description (measure::Device::features(), or a cost model's learned vector) as
// the `{name: value}` object that `predict --json` and `features --json` print.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/device.h"

namespace tensorperf::cli {

inline nlohmann::json device_features_json(const std::vector<double>& vector) {
  nlohmann::json out = nlohmann::json::object();
  const std::vector<std::string>& names = measure::device_feature_names();
  for (size_t i = 0; i < vector.size() && i < names.size(); ++i) out[names[i]] = vector[i];
  return out;
}

}  // namespace tensorperf::cli
