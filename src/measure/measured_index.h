// Which (workload, device, provider, config) points already have a record: what a resumed profile
// skips. Built from a record file or from the database's records for a device.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "measure/record.h"

namespace tensorperf::measure {

class MeasuredIndex {
 public:
  // Keeps the first record of each point; later ones of the same point are ignored.
  void add(const Record& r);
  // The record of this point, or null.
  const Record* find(const std::string& workload_key, const std::string& device_key, const std::string& provider,
                     const nlohmann::json& config) const;
  size_t size() const { return records_.size(); }

 private:
  std::unordered_map<std::string, Record> records_;
};

}  // namespace tensorperf::measure
