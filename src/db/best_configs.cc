#include "db/best_configs.h"

#include <algorithm>

namespace tensorperf::db {
namespace {

// Top k over several devices, lowest mean cost first, ties to the earlier record.
Result<std::vector<StoredRecord>> top_over(RecordStore& store, std::string_view workload_key,
                                           const std::vector<const DeviceDescription*>& devices, int k) {
  std::vector<StoredRecord> all;
  for (const DeviceDescription* d : devices) {
    TP_ASSIGN_OR_RETURN(std::vector<StoredRecord> top, store.top_records(workload_key, d->key, k));
    for (auto& r : top) all.push_back(std::move(r));
  }
  std::sort(all.begin(), all.end(), [](const StoredRecord& a, const StoredRecord& b) {
    return *a.mean_cost != *b.mean_cost ? *a.mean_cost < *b.mean_cost : a.id < b.id;
  });
  if (all.size() > static_cast<size_t>(k)) all.resize(k);
  return all;
}

// The fallback levels below the exact device.
Result<BestConfigs> closest_other_devices(RecordStore& store, std::string_view workload_key, std::string_view device,
                                          int k, std::string_view target) {
  BestConfigs best;
  TP_ASSIGN_OR_RETURN(std::vector<DeviceDescription> known, store.device_descriptions());
  DeviceDescription query;
  auto self = std::find_if(known.begin(), known.end(), [&](const DeviceDescription& d) { return d.key == device; });
  if (self != known.end()) {
    query = *self;
  } else if (looks_like_tvm_target(device)) {
    query = describe_tvm_target(device);
  } else if (!target.empty()) {
    query = describe_native_device(device, target);
  } else {
    return best;
  }

  if (!query.model.empty() && query.model != "unknown") {
    std::vector<const DeviceDescription*> same_model;
    for (const auto& d : known)
      if (d.key != device && d.model == query.model) same_model.push_back(&d);
    TP_ASSIGN_OR_RETURN(best.records, top_over(store, workload_key, same_model, k));
    if (!best.records.empty()) {
      best.match = DeviceMatch::kModel;
      best.matched_on = query.model;
      return best;
    }
  }
  for (const std::string& key : query.keys) {
    std::vector<const DeviceDescription*> sharing;
    for (const auto& d : known)
      if (d.key != device && std::find(d.keys.begin(), d.keys.end(), key) != d.keys.end()) sharing.push_back(&d);
    TP_ASSIGN_OR_RETURN(best.records, top_over(store, workload_key, sharing, k));
    if (!best.records.empty()) {
      best.match = DeviceMatch::kTargetKey;
      best.matched_on = key;
      return best;
    }
  }
  return best;
}

}  // namespace

std::string_view match_name(DeviceMatch m) {
  switch (m) {
    case DeviceMatch::kExact: return "exact";
    case DeviceMatch::kModel: return "model";
    case DeviceMatch::kTargetKey: return "target-key";
  }
  return "unknown";
}

Result<BestConfigs> best_configs(RecordStore& store, std::string_view workload_key, std::string_view device, int k,
                                 std::string_view target) {
  BestConfigs best;
  if (k <= 0) return best;
  TP_ASSIGN_OR_RETURN(best.records, store.top_records(workload_key, device, k));
  if (!best.records.empty()) return best;
  return closest_other_devices(store, workload_key, device, k, target);
}

Result<BestConfigs> best_configs_elsewhere(RecordStore& store, std::string_view workload_key, std::string_view device,
                                           int k, std::string_view target) {
  if (k <= 0) return BestConfigs{};
  return closest_other_devices(store, workload_key, device, k, target);
}

}  // namespace tensorperf::db
