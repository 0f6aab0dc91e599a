// The tuning database seen from the measurement side: a RecordSink that stores each record in a
// RecordStore, the store's records of a device as a MeasuredIndex, and work claims in the store, so
// that commands which measure (profile, tune) write to the database, resume from it, and divide the
// work when several share it.
#pragma once

#include <string>

#include "db/record_store.h"
#include "measure/measured_index.h"
#include "measure/record_sink.h"
#include "measure/work_claims.h"

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

// Work claims kept in `store` for this process (claim_owner()), each a lease of `lease_s` seconds:
// long enough to compile and time one config. Does not own the store.
class StoreClaims : public measure::WorkClaims {
 public:
  StoreClaims(RecordStore& store, double lease_s) : store_(store), lease_s_(lease_s) {}
  Result<bool> claim(const std::string& point) override { return store_.claim(point, claim_owner(), lease_s_); }
  Status release(const std::string& point) override { return store_.release(point, claim_owner()); }
  Status done(const std::string& point) override { return store_.release(point, claim_owner(), lease_s_); }

 private:
  RecordStore& store_;
  double lease_s_;
};

}  // namespace tensorperf::db
