// Transfer: what the store already knows that a model-based tuner can start from. For a task
// (workload, device), the error-free and failed records of the other workloads of its op kind, on
// any device, and of its own workload on other devices, each (workload, device) a group of rows
// encoded like the task's own (features/workload_features.h).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "db/record_store.h"
#include "kernels/provider.h"
#include "ir/op_kind.h"
#include "tune/search_space.h"
#include "tune/tuner.h"

namespace tensorperf::tune {

class TransferPool {
 public:
  // Reads every native record of `provider` whose workload's op kind is in `ops`.
  static Result<TransferPool> load(db::RecordStore& store, const std::set<ir::OpKind>& ops, const std::string& provider);

  // Groups for a task: every (workload, device) of w's op kind but (w, device_key), with at least two
  // records whose configs are points of `provider`'s space for w; at most max_rows rows in all (the
  // largest groups are cut first). Rows: workload_features | device_key_features | the point's
  // features in the space of the record's own workload (its schedule features depend on its shapes).
  std::vector<TransferGroup> groups_for(const ir::Workload& w, const std::string& device_key,
                                        const kernels::Provider& provider, size_t max_rows = 20000) const;
  size_t records() const;

 private:
  struct Entry {
    nlohmann::json config;
    double cost;  // +inf: failed
  };
  // op -> (workload key, device key) -> entries in id order
  std::map<ir::OpKind, std::map<std::pair<std::string, std::string>, std::vector<Entry>>> by_op_;
};

}  // namespace tensorperf::tune
