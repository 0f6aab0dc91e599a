#include "measure/measured_index.h"

#include "measure/work_claims.h"

namespace tensorperf::measure {

std::string point_key(const std::string& workload_key, const std::string& device_key, const std::string& provider,
                      const nlohmann::json& config) {
  // nlohmann::json sorts object keys, so dump() is canonical for a config.
  return workload_key + '\n' + device_key + '\n' + provider + '\n' + config.dump();
}

void MeasuredIndex::add(const Record& r) {
  records_.emplace(point_key(r.workload_key, r.device_key, r.provider, r.config), r);
}

const Record* MeasuredIndex::find(const std::string& workload_key, const std::string& device_key,
                                  const std::string& provider, const nlohmann::json& config) const {
  auto it = records_.find(point_key(workload_key, device_key, provider, config));
  return it == records_.end() ? nullptr : &it->second;
}

}  // namespace tensorperf::measure
