// TVM's apply_history_best selection (autotvm/task/dispatcher.py, ApplyHistoryBest.load): records
// with an error are skipped; for every (target key, workload) and every (-model, workload) the
// record of lowest mean cost wins, a tie keeping the earlier record; records without -model only
// compete by target key. auto_scheduler logs follow the same rule. Tensorperf records compete per
// (device key, workload). Feed records in insertion order.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "db/record_store.h"

namespace tensorperf::db {

class BestSelection {
 public:
  // `device` describes record.device_key.
  void add(const StoredRecord& record, const DeviceDescription& device);
  // Ids of the records that are best for at least one key, ascending.
  std::vector<int64_t> selected_ids() const;

 private:
  struct Best {
    int64_t id;
    double cost;
  };
  void offer(std::string key, const StoredRecord& record);
  std::unordered_map<std::string, Best> best_;
};

}  // namespace tensorperf::db
