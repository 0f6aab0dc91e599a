// The best configs of a workload for a device, falling back to the closest known device when the
// device itself has no error-free record, as TVM's apply_history_best falls back from -model to
// target key: first the exact device, then devices with the same -model, then devices sharing a
// target key (the device's keys in order, most specific first: "arm_cpu" before "cpu").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "db/record_store.h"

namespace tensorperf::db {

enum class DeviceMatch { kExact, kModel, kTargetKey };
std::string_view match_name(DeviceMatch m);  // "exact", "model", "target-key"

struct BestConfigs {
  DeviceMatch match = DeviceMatch::kExact;
  std::string matched_on;              // the model or target key a fallback matched; empty when exact
  std::vector<StoredRecord> records;   // lowest mean cost first; each names the device it ran on
};

// `device` is a device key or TVM target string, stored or not (an unknown TVM target string is
// parsed for its model and keys). A tensorperf device key the store has never seen falls back by
// `target`, its compile target (a Halide target string), when given: same target first, then same
// architecture. Empty records when no device matches at any level.
Result<BestConfigs> best_configs(RecordStore& store, std::string_view workload_key, std::string_view device, int k,
                                 std::string_view target = {});

// The same fallback without the device's own records: the best configs of the workload on the
// closest other devices (same model, then shared target keys). What a tuner on `device` can measure
// first, as TVM users seed a new device with another's best records.
Result<BestConfigs> best_configs_elsewhere(RecordStore& store, std::string_view workload_key, std::string_view device,
                                           int k, std::string_view target = {});

}  // namespace tensorperf::db
