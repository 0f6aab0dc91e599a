// The tuning database seen from the measurement side: a RecordSink that stores each record in a
// RecordStore, and the store's records of a device as a MeasuredIndex, so that commands which
// measure (profile, tune) write to the database and resume from it.
#pragma once

#include <string>

#include "db/record_store.h"
#include "measure/measured_index.h"
#include "measure/record_sink.h"

namespace tensorperf::db {

// Does not own the store; the store must outlive the sink.
class DbRecordSink : public measure::RecordSink {
 public:
  explicit DbRecordSink(RecordStore& store) : store_(store) {}
  Status write(const measure::Record& r) override { return add_record(store_, r); }

 private:
  RecordStore& store_;
};

// Adds every tensorperf record of `device_key` in `store` to `index`; returns how many were added.
Result<int64_t> index_store_records(RecordStore& store, const std::string& device_key,
                                    measure::MeasuredIndex& index);

}  // namespace tensorperf::db
