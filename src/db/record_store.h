// The tuning database: every measurement ever made, keyed by workload and device. One interface,
// two backends: SQLite (a file; the default) and PostgreSQL (a shared server). Records whose
// content hash is already stored are skipped, so imports are idempotent; record ids grow in
// insertion order, which is the order exports and "ties keep the earlier record" follow.
// Thread-safety: one RecordStore per thread; several processes may write one store at once, and
// may create or migrate it at once (one does it, the others wait for it).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "db/parsed_record.h"
#include "db/target_info.h"

namespace tensorperf::db {

struct StoredRecord {
  int64_t id = 0;
  RecordFormat format = RecordFormat::kNative;
  std::string workload_key;
  std::string device_key;
  std::string config;  // compact JSON
  std::string line;    // the original line
  int error_no = 0;
  std::optional<double> mean_cost;  // set when error_no == 0
  double timestamp = 0;
};

struct InsertCounts {
  int64_t inserted = 0;
  int64_t duplicates = 0;  // already stored (same content hash)
};

// Which records scan() visits; empty fields do not filter.
struct ScanFilter {
  std::string workload_key;
  std::string device_key;
  std::optional<RecordFormat> format;
  // Whether visited records need StoredRecord::config (SQLite extracts it from the line, ~2 us a
  // record); the line and the other fields are always set.
  bool with_config = true;
};

struct DeviceSummary {
  DeviceDescription device;
  int64_t records = 0;
  int64_t workloads = 0;
};

struct WorkloadSummary {
  std::string key;
  int64_t records = 0;
  int64_t devices = 0;
  std::optional<double> best_mean_cost;  // over all devices
};

struct StoreStats {
  int schema_version = 0;
  int64_t records = 0;
  int64_t error_records = 0;
  int64_t workloads = 0;
  int64_t devices = 0;
  int64_t configs = 0;
  std::vector<std::pair<RecordFormat, int64_t>> records_by_format;
  std::vector<std::pair<std::string, std::string>> build_info;  // component -> version
};

// Records handed to a store together. `packed`, when not empty, holds the records' lines already
// compressed as record chunks (db/record_chunk.h): packed[i] is ChunkWriter's compress() of the
// lines of records [i * kChunkRecords, (i + 1) * kChunkRecords), so that a store that keeps chunks
// need not compress them on its own thread.
struct RecordBlock {
  std::span<const ParsedRecord> records;
  std::span<const std::string> packed;
};

// The blocks of records of one transaction, handed over one at a time (what bulk imports use: a
// parser thread fills small, reused blocks while the store writes the previous ones).
class RecordBlocks {
 public:
  virtual ~RecordBlocks() = default;
  // The next block; one without records after the last. A block stays valid until the next call.
  virtual Result<RecordBlock> next() = 0;
};

class RecordStore {
 public:
  virtual ~RecordStore() = default;

  virtual std::string_view backend() const = 0;  // "sqlite" or "postgresql"

  // Stores `batch` in one transaction, in order, skipping records already stored. On error nothing
  // of the batch is stored.
  virtual Status insert(std::span<const ParsedRecord> batch, InsertCounts& counts) = 0;
  // The same for a batch handed over in blocks: every block `blocks` yields, in one transaction.
  // `expected` is about how many records the blocks hold (the SQLite store plans its index work
  // with it). An error from `blocks` rolls the transaction back and is returned. The default
  // gathers the blocks and calls insert().
  virtual Status insert_blocks(RecordBlocks& blocks, size_t expected, InsertCounts& counts);

  // Up to k error-free records of `workload_key` on exactly `device_key`, lowest mean cost first,
  // ties to the earlier record. Empty when there are none.
  virtual Result<std::vector<StoredRecord>> top_records(std::string_view workload_key,
                                                        std::string_view device_key, int k) = 0;

  // Calls `visit` for each matching record in id order; stops at the first non-OK status it returns.
  virtual Status scan(const ScanFilter& filter, const std::function<Status(const StoredRecord&)>& visit) = 0;

  // Every device, without counts (cheap); devices() adds the counts.
  virtual Result<std::vector<DeviceDescription>> device_descriptions() = 0;
  virtual Result<std::vector<DeviceSummary>> devices() = 0;
  virtual Result<std::vector<WorkloadSummary>> workloads() = 0;
  virtual Result<StoreStats> stats() = 0;

  // Work claims (measure/work_claims.h) kept in the store, so that every run sharing it sees them.
  // A claim on `key` by `owner` (claim_owner()) lasts `lease_s` seconds from now. True when
  // `owner` holds the claim now: it was free, its lease had run out, its holder is a process of
  // this host that is no longer alive, or `owner` held it already (the lease is renewed).
  virtual Result<bool> claim(std::string_view key, std::string_view owner, double lease_s) = 0;
  // Ends `owner`'s claim on `key` (none: nothing happens). keep_s == 0: the key is free at once
  // (the work was given up). keep_s > 0: the work is done and stored; the key stays refused to
  // every run, whoever is alive, for keep_s seconds, so that runs whose view of the store predates
  // the record do not measure it again before they next read the store.
  virtual Status release(std::string_view key, std::string_view owner, double keep_s = 0) = 0;
};

// This process as a claim owner: "host:pid:start" (start: the process's start time, so that a
// reused pid is another owner).
const std::string& claim_owner();
// Whether a claim owner names a process of this host that is gone. False for other hosts (their
// claims end with their leases) and for owners it cannot parse.
bool claim_owner_dead(std::string_view owner);

enum class OpenMode {
  kCreate,    // create the store (schema included) when it does not exist; migrate it when older
  kExisting,  // NotFound when there is no store at the URL; migrate it when older
  kRead,      // read only (a read-only file or mount works): NotFound when there is no store, an
              // error when it needs a migration; writing through it fails
};

// `url` is "postgresql://..." / "postgres://..." (libpq URL; PG* environment variables fill in what
// it leaves out) or a SQLite file path. Messages never contain a password.
Result<std::unique_ptr<RecordStore>> open_store(std::string_view url, OpenMode mode);

// Stores one tensorperf record (what `tensorperf profile` calls for each measurement).
Status add_record(RecordStore& store, const measure::Record& record);

}  // namespace tensorperf::db
