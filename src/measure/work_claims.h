// Work claims: how runs that share a store (two `profile` or `tune` processes on one database)
// divide the configs to measure instead of measuring each one twice. Before measuring a point, a
// run claims it; a point claimed by another live run is left to that run. Implemented by the record
// store (db/db_record_sink.h); the measurement side sees only this interface.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace tensorperf::measure {

class WorkClaims {
 public:
  virtual ~WorkClaims() = default;
  // True when this run now holds the point (it was free, expired, held by a dead run, or already
  // ours); false when another live run holds it. Errors: the store failed.
  virtual Result<bool> claim(const std::string& point) = 0;
  // Gives the point up when it will not be measured after all: another run may take it at once.
  virtual Status release(const std::string& point) = 0;
  // The point's record is stored: the claim stays, refused to every run, long enough for the other
  // runs to read the record before they could take the point again.
  virtual Status done(const std::string& point) = 0;
};

// The key of a point: workload, device, provider and config (its canonical JSON).
std::string point_key(const std::string& workload_key, const std::string& device_key, const std::string& provider,
                      const nlohmann::json& config);

}  // namespace tensorperf::measure
