#include "db/sqlite_store.h"

#include <sqlite3.h>
#include <xxhash.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/unix_time.h"
#include "db/content_hash.h"
#include "db/line_parser.h"
#include "db/record_chunk.h"
#include "db/sqlite_statement.h"

namespace tensorperf::db {
namespace {

constexpr int kBusyTimeoutMs = 60000;
constexpr size_t kMaxCachedIds = 1 << 16;  // per key kind

// Schema migrations, applied in order; migration i brings the store to version i + 1. Never edit
// one that has shipped: append a new one. A migration may have a C++ step (convert), run between
// its SQL and its `after` SQL in the same transaction.
//
// Version 2 keeps each record's original line in a zstd-compressed chunk of up to kChunkRecords
// lines (record_chunks) instead of a text column, and drops the configs table: a config is part of
// its record's line, extracted by LineParser when a query returns it, and records.config_hash
// (config_key(), a 64-bit XXH3 of provider and config) tells configs apart for counting.
// records.hash is the first 8 bytes of the line's SHA-256: two different lines collide by chance
// with probability about n^2 / 2^65 (3e-4 at 10^8 records), and making one collide with a given
// line takes a 2^64 search.
//
// One index, records_key, both finds the best configs (workload, device, error-free first, by
// cost) and keeps each line once: workload, device, error_no and mean_cost are functions of the
// line, so two records with the same hash have the same key, and the key is unique exactly when
// the hash is. (A second, hash-only unique index cost 1.6 us of the ~4.5 us a record took to
// store.) mean_cost is 0 for records with an error, so that the key has no NULL (SQLite's unique
// indexes let NULLs repeat). See docs/database.md.
struct Migration {
  const char* sql;
  bool convert;  // run SqliteStore::convert_to_v2 (the only conversion so far) after `sql`
  const char* after;
};
constexpr Migration kMigrations[] = {
    {R"sql(
CREATE TABLE build_info(component TEXT PRIMARY KEY, version TEXT NOT NULL, recorded_at REAL NOT NULL);
CREATE TABLE devices(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, target TEXT NOT NULL,
                     target_keys TEXT NOT NULL, model TEXT NOT NULL, mcpu TEXT NOT NULL);
CREATE TABLE workloads(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE);
CREATE TABLE configs(id INTEGER PRIMARY KEY, hash BLOB NOT NULL UNIQUE, provider TEXT NOT NULL,
                     body TEXT NOT NULL);
CREATE TABLE records(id INTEGER PRIMARY KEY, hash BLOB NOT NULL UNIQUE, format INTEGER NOT NULL,
                     workload_id INTEGER NOT NULL REFERENCES workloads(id),
                     device_id INTEGER NOT NULL REFERENCES devices(id),
                     config_id INTEGER NOT NULL REFERENCES configs(id),
                     error_no INTEGER NOT NULL, mean_cost REAL, costs TEXT NOT NULL,
                     build_time REAL NOT NULL, timestamp REAL NOT NULL, version TEXT NOT NULL,
                     line TEXT NOT NULL);
CREATE INDEX records_best ON records(workload_id, device_id, mean_cost) WHERE error_no = 0;
)sql",
     false, ""},
    {R"sql(
CREATE TABLE record_chunks(id INTEGER PRIMARY KEY, codec INTEGER NOT NULL, data BLOB NOT NULL);
CREATE TABLE records_v2(id INTEGER PRIMARY KEY, hash INTEGER NOT NULL, format INTEGER NOT NULL,
                        workload_id INTEGER NOT NULL REFERENCES workloads(id),
                        device_id INTEGER NOT NULL REFERENCES devices(id),
                        config_hash INTEGER NOT NULL, error_no INTEGER NOT NULL, mean_cost REAL NOT NULL,
                        build_time REAL NOT NULL, timestamp REAL NOT NULL,
                        chunk_id INTEGER NOT NULL REFERENCES record_chunks(id), slot INTEGER NOT NULL);
CREATE UNIQUE INDEX records_key ON records_v2(workload_id, device_id, error_no, mean_cost, hash);
)sql",
     true, R"sql(
DROP TABLE records;
DROP TABLE configs;
ALTER TABLE records_v2 RENAME TO records;
)sql"},
    // 3: work claims of the runs that share the store (RecordStore::claim).
    {R"sql(
CREATE TABLE claims(key TEXT PRIMARY KEY, owner TEXT NOT NULL, expires REAL NOT NULL) WITHOUT ROWID;
)sql",
     false, ""},
};
constexpr int kSchemaVersion = static_cast<int>(std::size(kMigrations));
// Read-only opens take every version with today's record layout (they never claim work).
constexpr int kOldestReadableVersion = 2;

using Stmt = SqliteStatement;

// Key -> id, looked up by string_view without building a std::string.
// Workload keys run to hundreds of bytes: XXH3 hashes them several times faster than std::hash.
struct KeyHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return static_cast<size_t>(XXH3_64bits(s.data(), s.size())); }
};
// Ids of keys known to be committed, with the last one looked up apart: records come in runs of
// one workload and one device, and comparing with the last key is cheaper than hashing it.
struct IdCache {
  std::unordered_map<std::string, int64_t, KeyHash, std::equal_to<>> ids;
  std::string last_key;
  int64_t last_id = 0;  // 0: none

  std::optional<int64_t> find(std::string_view key) {
    if (last_id != 0 && key == last_key) return last_id;
    auto it = ids.find(key);
    if (it == ids.end()) return std::nullopt;
    last_key.assign(key);
    last_id = it->second;
    return last_id;
  }
  void add(std::string_view key, int64_t id) {
    if (ids.size() >= kMaxCachedIds) ids.clear();  // bounded: a miss costs one indexed lookup
    ids.emplace(std::string(key), id);
  }
  void clear() {
    ids.clear();
    last_id = 0;
  }
};

class SqliteStore final : public RecordStore {
 public:
  SqliteStore(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteStore() override {
    // Statements first: sqlite3_close refuses while any is alive.
    stmts_.reset();
    sqlite3_close(db_);
  }

  Status init(OpenMode mode);

  std::string_view backend() const override { return "sqlite"; }
  Status insert(std::span<const ParsedRecord> batch, InsertCounts& counts) override;
  Status insert_blocks(RecordBlocks& blocks, size_t expected, InsertCounts& counts) override;
  Result<std::vector<StoredRecord>> top_records(std::string_view workload_key, std::string_view device_key,
                                                int k) override;
  Status scan(const ScanFilter& filter, const std::function<Status(const StoredRecord&)>& visit) override;
  Result<std::vector<DeviceDescription>> device_descriptions() override;
  Result<std::vector<DeviceSummary>> devices() override;
  Result<std::vector<WorkloadSummary>> workloads() override;
  Result<StoreStats> stats() override;
  Result<bool> claim(std::string_view key, std::string_view owner, double lease_s) override;
  Status release(std::string_view key, std::string_view owner, double keep_s) override;

 private:
  struct Statements {
    Stmt insert_workload, select_workload, insert_device, select_device, insert_record, insert_chunk, select_chunk,
        top, max_chunk_id;
  };

  Status exec(const char* sql) { return sqlite_exec(db_, sql, "sqlite (" + path_ + "): "); }
  Status error(const char* what) const {
    return Status::Internal("sqlite (" + path_ + "): " + what + ": " + sqlite3_errmsg(db_));
  }
  Status step_done(Stmt& s, const char* what) {
    int rc = sqlite3_step(s.get());
    s.reset();
    return rc == SQLITE_DONE ? Status::Ok() : error(what);
  }
  // The id of `key` in a table of unique keys, inserting the row (bind_rest binds its other columns).
  template <typename BindRest>
  Result<int64_t> intern(Stmt& ins, Stmt& sel, std::string_view key, IdCache& cache,
                         const BindRest& bind_rest);
  Status insert_locked(RecordBlocks& blocks, InsertCounts& counts);
  // Inserts r's row, naming (chunk, slot) for its line; `inserted` is false when it was stored already.
  Status insert_record(const ParsedRecord& r, int64_t chunk, int slot, bool& inserted);
  // Runs `ins` (INSERT INTO record_chunks(id, codec, data)) for chunk `id`.
  Status store_chunk(Stmt& ins, int64_t id, std::string_view data);
  // Reads chunk `id` into chunk_reader_ unless it is already there (loaded_chunk_).
  Status load_chunk(int64_t id);
  // The line and, when with_config, the config of a record stored in (chunk, slot).
  Status read_record(int64_t chunk, int slot, bool with_config, StoredRecord& r);
  // Migration 2: moves v1 records (line column, configs table) into records_v2 and chunks.
  Status convert_to_v2();
  Status prepare_statements();
  // One attempt at opening for writing: pragmas, then create or migrate the schema in one
  // transaction. init() retries it while another process holds the store.
  Status set_up(OpenMode mode);
  // 0 when the file has no tensorperf schema yet.
  Result<int> schema_version();

  sqlite3* db_;
  int64_t claims_made_ = 0;
  std::string path_;
  std::unique_ptr<Statements> stmts_;
  // Ids of rows known to be committed, so a batch looks each key up once per process.
  IdCache workload_ids_, device_ids_;
  ChunkWriter chunk_writer_;
  ChunkReader chunk_reader_;
  int64_t loaded_chunk_ = 0;  // the chunk in chunk_reader_; 0: none (chunk ids start at 1)
  std::unique_ptr<LineParser> parser_;  // extracts configs from lines, made on first use
  ParsedRecord parsed_;
};

Status SqliteStore::init(OpenMode mode) {
  sqlite3_busy_timeout(db_, kBusyTimeoutMs);
  if (mode == OpenMode::kRead) {
    TP_RETURN_IF_ERROR(exec("PRAGMA cache_size=-131072; PRAGMA temp_store=MEMORY"));
    TP_ASSIGN_OR_RETURN(int version, schema_version());
    if (version == 0)
      return Status::NotFound(path_ + " is not a tensorperf database; run `tensorperf db init --db " + path_ + "`");
    if (version < kOldestReadableVersion || version > kSchemaVersion)
      return Status::Unsupported(path_ + " has schema version " + std::to_string(version) + " and this build reads " +
                                 std::to_string(kOldestReadableVersion) + " to " + std::to_string(kSchemaVersion) +
                                 (version > kSchemaVersion ? "; upgrade tensorperf"
                                                           : "; open it once with a command that writes (e.g. "
                                                             "`tensorperf db init`) to migrate it"));
    return prepare_statements();
  }
  // Two processes creating or migrating a new store at once: setting up WAL mode and the first
  // transaction can fail with SQLITE_BUSY without waiting for the busy timeout (SQLite does not
  // wait where waiting could deadlock). Retry the whole set-up until the other one is done.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  std::mt19937 jitter(static_cast<unsigned>(::getpid()));
  for (int attempt = 0;; ++attempt) {
    Status s = set_up(mode);
    const int code = sqlite3_extended_errcode(db_) & 0xff;
    if (s.ok() || (code != SQLITE_BUSY && code != SQLITE_LOCKED) || std::chrono::steady_clock::now() > deadline) return s;
    (void)exec("ROLLBACK");
    std::this_thread::sleep_for(std::chrono::milliseconds(5 + jitter() % (10 << std::min(attempt, 6))));
  }
}

Result<int> SqliteStore::schema_version() {
  Stmt s;
  TP_RETURN_IF_ERROR(s.prepare(db_, "SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_version'"));
  const int rc = sqlite3_step(s.get());
  if (rc == SQLITE_DONE) return 0;
  if (rc != SQLITE_ROW) return error("reading the schema");
  Stmt v;
  TP_RETURN_IF_ERROR(v.prepare(db_, "SELECT max(version) FROM schema_version"));
  if (sqlite3_step(v.get()) != SQLITE_ROW) return error("reading the schema version");
  return static_cast<int>(v.column_int(0));
}

Status SqliteStore::set_up(OpenMode mode) {
  // page_size only takes effect on a new file, before the first table.
  TP_RETURN_IF_ERROR(exec("PRAGMA page_size=65536"));
  TP_RETURN_IF_ERROR(exec("PRAGMA journal_mode=WAL"));
  TP_RETURN_IF_ERROR(exec("PRAGMA synchronous=NORMAL; PRAGMA cache_size=-131072; PRAGMA temp_store=MEMORY; "
                          "PRAGMA wal_autocheckpoint=4096"));
  TP_RETURN_IF_ERROR(exec("BEGIN IMMEDIATE"));
  auto migrate = [&]() -> Status {
    int current = 0;
    {
      Stmt s;
      if (s.prepare(db_, "SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_version'").ok() &&
          sqlite3_step(s.get()) == SQLITE_ROW) {
        Stmt v;
        TP_RETURN_IF_ERROR(v.prepare(db_, "SELECT max(version) FROM schema_version"));
        if (sqlite3_step(v.get()) == SQLITE_ROW) current = static_cast<int>(v.column_int(0));
      } else if (mode == OpenMode::kExisting) {
        return Status::NotFound(path_ + " is not a tensorperf database; run `tensorperf db init --db " + path_ + "`");
      } else {
        TP_RETURN_IF_ERROR(exec("CREATE TABLE schema_version(version INTEGER NOT NULL, applied_at REAL NOT NULL)"));
      }
    }
    if (current > kSchemaVersion)
      return Status::Unsupported(path_ + " has schema version " + std::to_string(current) +
                                 ", newer than this build's " + std::to_string(kSchemaVersion) +
                                 "; upgrade tensorperf");
    for (int v = current; v < kSchemaVersion; ++v) {
      TP_RETURN_IF_ERROR(exec(kMigrations[v].sql));
      if (kMigrations[v].convert) TP_RETURN_IF_ERROR(convert_to_v2());
      TP_RETURN_IF_ERROR(exec(kMigrations[v].after));
      Stmt s;
      TP_RETURN_IF_ERROR(s.prepare(db_, "INSERT INTO schema_version(version, applied_at) VALUES(?1, (julianday('now') - 2440587.5) * 86400.0)"));
      s.integer(1, v + 1);
      TP_RETURN_IF_ERROR(step_done(s, "recording the schema version"));
    }
    if (current < kSchemaVersion) {
      Stmt s;
      TP_RETURN_IF_ERROR(s.prepare(db_, "INSERT INTO build_info(component, version, recorded_at) VALUES(?1, ?2, (julianday('now') - 2440587.5) * 86400.0) "
                                        "ON CONFLICT(component) DO UPDATE SET version = excluded.version, recorded_at = excluded.recorded_at"));
      for (auto [c, v] : {std::pair<std::string_view, std::string_view>{"tensorperf", measure::tensorperf_version()},
                          {"sqlite", sqlite3_libversion()}}) {
        s.text(1, c);
        s.text(2, v);
        TP_RETURN_IF_ERROR(step_done(s, "recording build info"));
      }
    }
    return Status::Ok();
  };
  Status s = migrate();
  if (!s.ok()) {
    (void)exec("ROLLBACK");
    return s;
  }
  TP_RETURN_IF_ERROR(exec("COMMIT"));
  return prepare_statements();
}

Status SqliteStore::prepare_statements() {
  stmts_ = std::make_unique<Statements>();
  Statements& s = *stmts_;
  TP_RETURN_IF_ERROR(s.insert_workload.prepare(db_, "INSERT INTO workloads(key) VALUES(?1) ON CONFLICT DO NOTHING"));
  TP_RETURN_IF_ERROR(s.select_workload.prepare(db_, "SELECT id FROM workloads WHERE key = ?1"));
  TP_RETURN_IF_ERROR(s.insert_device.prepare(
      db_, "INSERT INTO devices(key, target, target_keys, model, mcpu) VALUES(?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING"));
  TP_RETURN_IF_ERROR(s.select_device.prepare(db_, "SELECT id FROM devices WHERE key = ?1"));
  TP_RETURN_IF_ERROR(s.insert_record.prepare(
      db_, "INSERT OR IGNORE INTO records(hash, format, workload_id, device_id, config_hash, error_no, mean_cost, "
           "build_time, timestamp, chunk_id, slot) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"));
  TP_RETURN_IF_ERROR(s.insert_chunk.prepare(db_, "INSERT INTO record_chunks(id, codec, data) VALUES(?1, ?2, ?3)"));
  TP_RETURN_IF_ERROR(s.select_chunk.prepare(db_, "SELECT codec, data FROM record_chunks WHERE id = ?1"));
  TP_RETURN_IF_ERROR(s.max_chunk_id.prepare(db_, "SELECT coalesce(max(id), 0) FROM record_chunks"));
  TP_RETURN_IF_ERROR(s.top.prepare(
      db_, "SELECT r.id, r.format, r.chunk_id, r.slot, r.error_no, r.mean_cost, r.timestamp FROM records r "
           "WHERE r.workload_id = (SELECT id FROM workloads WHERE key = ?1) "
           "AND r.device_id = (SELECT id FROM devices WHERE key = ?2) AND r.error_no = 0 "
           "ORDER BY r.mean_cost, r.id LIMIT ?3"));
  return Status::Ok();
}

template <typename BindRest>
Result<int64_t> SqliteStore::intern(Stmt& ins, Stmt& sel, std::string_view key, IdCache& cache,
                                    const BindRest& bind_rest) {
  if (auto id = cache.find(key)) return *id;
  ins.text_static(1, key);
  bind_rest(ins);
  // Not RETURNING: SQLite gathers RETURNING rows in a temporary table first, which costs more than
  // reading the new rowid.
  int64_t id = 0;
  int rc = sqlite3_step(ins.get());
  if (rc == SQLITE_DONE && sqlite3_changes(db_) > 0) id = sqlite3_last_insert_rowid(db_);
  ins.reset();
  if (rc != SQLITE_DONE) return error("inserting a key");
  if (id == 0) {  // already there
    sel.text_static(1, key);
    rc = sqlite3_step(sel.get());
    if (rc == SQLITE_ROW) id = sel.column_int(0);
    sel.reset();
    if (rc != SQLITE_ROW) return error("looking up a key");
  }
  cache.add(key, id);
  return id;
}

// The first 8 bytes of a content hash as an integer: what records.hash holds.
int64_t hash_prefix(std::string_view hash) {
  int64_t v = 0;
  std::memcpy(&v, hash.data(), std::min(sizeof v, hash.size()));
  return v;
}

Status SqliteStore::store_chunk(Stmt& ins, int64_t id, std::string_view data) {
  ins.integer(1, id);
  ins.integer(2, kChunkCodecZstd);
  ins.blob(3, data);
  return step_done(ins, "storing a record chunk");
}

Status SqliteStore::insert_record(const ParsedRecord& r, int64_t chunk, int slot, bool& inserted) {
  Statements& s = *stmts_;
  TP_ASSIGN_OR_RETURN(int64_t wid, intern(s.insert_workload, s.select_workload, r.workload_key, workload_ids_, [](Stmt&) {}));
  std::string keys_json;
  TP_ASSIGN_OR_RETURN(int64_t did, intern(s.insert_device, s.select_device, r.device.key, device_ids_, [&](Stmt& st) {
                        keys_json = nlohmann::json(r.device.keys).dump(-1, ' ', false,
                                                                       nlohmann::json::error_handler_t::replace);
                        st.text_static(2, r.device.target);
                        st.text_static(3, keys_json);
                        st.text_static(4, r.device.model);
                        st.text_static(5, r.device.mcpu);
                      }));
  Stmt& ins = s.insert_record;
  ins.integer(1, hash_prefix(r.hash));
  ins.integer(2, static_cast<int>(r.format));
  ins.integer(3, wid);
  ins.integer(4, did);
  ins.integer(5, static_cast<int64_t>(r.config_key));
  ins.integer(6, r.error_no);
  ins.real(7, r.error_no == 0 ? r.mean_cost.value_or(0) : 0.0);
  ins.real(8, r.build_time_s);
  ins.real(9, r.timestamp);
  ins.integer(10, chunk);
  ins.integer(11, slot);
  TP_RETURN_IF_ERROR(step_done(ins, "inserting a record"));
  inserted = sqlite3_changes(db_) > 0;
  return Status::Ok();
}

Status SqliteStore::insert_locked(RecordBlocks& blocks, InsertCounts& counts) {
  // Chunk ids are taken under the write lock (BEGIN IMMEDIATE), so concurrent writers never share one.
  int64_t chunk = 0;
  {
    Stmt& max = stmts_->max_chunk_id;
    int rc = sqlite3_step(max.get());
    if (rc == SQLITE_ROW) chunk = max.column_int(0) + 1;
    max.reset();
    if (rc != SQLITE_ROW) return error("reading the last record chunk");
  }
  for (;;) {
    TP_ASSIGN_OR_RETURN(RecordBlock block, blocks.next());
    if (block.records.empty()) break;
    // Each group of kChunkRecords records becomes one chunk of the lines that were new: the
    // block's packed chunk when all were, a fresh one when some were.
    for (size_t g = 0; g < block.records.size(); g += kChunkRecords) {
      std::span<const ParsedRecord> group = block.records.subspan(g, std::min<size_t>(kChunkRecords, block.records.size() - g));
      std::array<bool, kChunkRecords> is_new{};
      int slot = 0;
      for (size_t i = 0; i < group.size(); ++i) {
        TP_RETURN_IF_ERROR(insert_record(group[i], chunk, slot, is_new[i]));
        slot += is_new[i];
      }
      counts.inserted += slot;
      counts.duplicates += static_cast<int64_t>(group.size()) - slot;
      if (slot == 0) continue;
      size_t packed_index = g / kChunkRecords;
      std::string_view data;
      if (slot == static_cast<int>(group.size()) && packed_index < block.packed.size()) {
        data = block.packed[packed_index];
      } else {
        chunk_writer_.clear();
        for (size_t i = 0; i < group.size(); ++i)
          if (is_new[i]) chunk_writer_.add(group[i].line);
        TP_ASSIGN_OR_RETURN(data, chunk_writer_.compress());
      }
      TP_RETURN_IF_ERROR(store_chunk(stmts_->insert_chunk, chunk++, data));
    }
  }
  return Status::Ok();
}

Status SqliteStore::load_chunk(int64_t id) {
  if (loaded_chunk_ == id) return Status::Ok();
  loaded_chunk_ = 0;
  Stmt& s = stmts_->select_chunk;
  s.integer(1, id);
  int rc = sqlite3_step(s.get());
  Status st = rc == SQLITE_ROW ? chunk_reader_.load(static_cast<int>(s.column_int(0)), s.column_view(1))
                               : rc == SQLITE_DONE ? Status::Corruption("record chunk " + std::to_string(id) + " is missing")
                                                   : error("reading a record chunk");
  s.reset();
  if (!st.ok()) return st.WithContext("sqlite (" + path_ + ")");
  loaded_chunk_ = id;
  return Status::Ok();
}

Status SqliteStore::read_record(int64_t chunk, int slot, bool with_config, StoredRecord& r) {
  TP_RETURN_IF_ERROR(load_chunk(chunk));
  TP_ASSIGN_OR_RETURN(std::string_view line, chunk_reader_.line(slot));
  r.line.assign(line);
  if (!with_config) return Status::Ok();
  if (!parser_) parser_ = std::make_unique<LineParser>();
  Status st = parser_->parse_into(line, parsed_);
  if (!st.ok()) return Status::Corruption("stored record " + std::to_string(r.id) + " does not parse: " + st.message());
  r.config = parsed_.config;
  return Status::Ok();
}

Status SqliteStore::convert_to_v2() {
  Stmt sel, ins, chunk_ins;
  TP_RETURN_IF_ERROR(sel.prepare(
      db_, "SELECT r.id, r.hash, r.format, r.workload_id, r.device_id, c.provider, r.error_no, r.mean_cost, r.build_time, "
           "r.timestamp, r.line, c.body FROM records r JOIN configs c ON c.id = r.config_id ORDER BY r.id"));
  TP_RETURN_IF_ERROR(ins.prepare(
      db_, "INSERT OR IGNORE INTO records_v2(id, hash, format, workload_id, device_id, config_hash, error_no, mean_cost, "
           "build_time, timestamp, chunk_id, slot) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"));
  TP_RETURN_IF_ERROR(chunk_ins.prepare(db_, "INSERT INTO record_chunks(id, codec, data) VALUES(?1, ?2, ?3)"));
  int64_t chunk = 1;
  auto flush = [&]() -> Status {
    if (chunk_writer_.lines() == 0) return Status::Ok();
    TP_ASSIGN_OR_RETURN(std::string_view data, chunk_writer_.compress());
    chunk_writer_.clear();  // keeps the compressed bytes
    return store_chunk(chunk_ins, chunk++, data);
  };
  chunk_writer_.clear();
  int rc;
  while ((rc = sqlite3_step(sel.get())) == SQLITE_ROW) {
    ins.integer(1, sel.column_int(0));
    ins.integer(2, hash_prefix(sel.column_view(1)));
    for (int c : {2, 3, 4}) ins.integer(c + 1, sel.column_int(c));
    ins.integer(6, static_cast<int64_t>(config_key(sel.column_view(5), sel.column_view(11))));
    ins.integer(7, sel.column_int(6));
    ins.real(8, sel.column_int(6) == 0 ? sel.column_real(7).value_or(0) : 0.0);
    ins.real(9, sel.column_real(8).value_or(0));
    ins.real(10, sel.column_real(9).value_or(0));
    ins.integer(11, chunk);
    ins.integer(12, chunk_writer_.lines());
    chunk_writer_.add(sel.column_view(10));
    TP_RETURN_IF_ERROR(step_done(ins, "migrating a record"));
    if (chunk_writer_.lines() == kChunkRecords) TP_RETURN_IF_ERROR(flush());
  }
  if (rc != SQLITE_DONE) return error("reading records to migrate");
  return flush();
}

Status SqliteStore::insert_blocks(RecordBlocks& blocks, size_t /*expected*/, InsertCounts& counts) {
  TP_RETURN_IF_ERROR(exec("BEGIN IMMEDIATE"));
  InsertCounts local;
  Status s = insert_locked(blocks, local);
  if (s.ok()) s = exec("COMMIT");
  if (!s.ok()) {
    (void)exec("ROLLBACK");
    // Ids cached during the failed batch may belong to rows that were rolled back.
    workload_ids_.clear();
    device_ids_.clear();
    return s;
  }
  counts.inserted += local.inserted;
  counts.duplicates += local.duplicates;
  return Status::Ok();
}

Status SqliteStore::insert(std::span<const ParsedRecord> batch, InsertCounts& counts) {
  struct One final : RecordBlocks {
    std::span<const ParsedRecord> batch;
    Result<RecordBlock> next() override { return RecordBlock{std::exchange(batch, {}), {}}; }
  } one;
  one.batch = batch;
  return insert_blocks(one, batch.size(), counts);
}

Result<std::vector<StoredRecord>> SqliteStore::top_records(std::string_view workload_key, std::string_view device_key,
                                                           int k) {
  Stmt& s = stmts_->top;
  s.text_static(1, workload_key);
  s.text_static(2, device_key);
  s.integer(3, k);
  std::vector<StoredRecord> out;
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    StoredRecord r;
    r.id = s.column_int(0);
    r.format = static_cast<RecordFormat>(s.column_int(1));
    r.workload_key = std::string(workload_key);
    r.device_key = std::string(device_key);
    r.error_no = static_cast<int>(s.column_int(4));
    r.mean_cost = s.column_real(5);  // error_no = 0 here
    r.timestamp = *s.column_real(6);
    Status st = read_record(s.column_int(2), static_cast<int>(s.column_int(3)), true, r);
    if (!st.ok()) {
      s.reset();
      return st;
    }
    out.push_back(std::move(r));
  }
  s.reset();
  if (rc != SQLITE_DONE) return error("querying the best records");
  return out;
}

Status SqliteStore::scan(const ScanFilter& filter, const std::function<Status(const StoredRecord&)>& visit) {
  Stmt s;
  TP_RETURN_IF_ERROR(s.prepare(
      db_, "SELECT r.id, r.format, w.key, d.key, r.chunk_id, r.slot, r.error_no, r.mean_cost, r.timestamp "
           "FROM records r JOIN workloads w ON w.id = r.workload_id JOIN devices d ON d.id = r.device_id "
           "WHERE (?1 IS NULL OR w.key = ?1) AND (?2 IS NULL OR d.key = ?2) AND (?3 IS NULL OR r.format = ?3) "
           "ORDER BY r.id"));
  if (!filter.workload_key.empty()) s.text_static(1, filter.workload_key);
  if (!filter.device_key.empty()) s.text_static(2, filter.device_key);
  if (filter.format) s.integer(3, static_cast<int>(*filter.format));
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    StoredRecord r;
    r.id = s.column_int(0);
    r.format = static_cast<RecordFormat>(s.column_int(1));
    r.workload_key = s.column_text(2);
    r.device_key = s.column_text(3);
    r.error_no = static_cast<int>(s.column_int(6));
    if (r.error_no == 0) r.mean_cost = s.column_real(7);
    r.timestamp = *s.column_real(8);
    TP_RETURN_IF_ERROR(read_record(s.column_int(4), static_cast<int>(s.column_int(5)), filter.with_config, r));
    TP_RETURN_IF_ERROR(visit(r));
  }
  return rc == SQLITE_DONE ? Status::Ok() : error("reading records");
}

DeviceDescription device_from_columns(std::string key, std::string target, const std::string& keys_json,
                                      std::string model, std::string mcpu) {
  DeviceDescription d;
  d.key = std::move(key);
  d.target = std::move(target);
  auto keys = nlohmann::json::parse(keys_json, nullptr, false);
  if (keys.is_array())
    for (const auto& k : keys)
      if (k.is_string()) d.keys.push_back(k.get<std::string>());
  d.model = std::move(model);
  d.mcpu = std::move(mcpu);
  return d;
}

Result<std::vector<DeviceDescription>> SqliteStore::device_descriptions() {
  Stmt s;
  TP_RETURN_IF_ERROR(s.prepare(db_, "SELECT key, target, target_keys, model, mcpu FROM devices ORDER BY id"));
  std::vector<DeviceDescription> out;
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW)
    out.push_back(device_from_columns(s.column_text(0), s.column_text(1), s.column_text(2), s.column_text(3),
                                      s.column_text(4)));
  if (rc != SQLITE_DONE) return error("reading devices");
  return out;
}

Result<std::vector<DeviceSummary>> SqliteStore::devices() {
  Stmt s;
  TP_RETURN_IF_ERROR(s.prepare(
      db_, "SELECT d.key, d.target, d.target_keys, d.model, d.mcpu, count(r.id), count(DISTINCT r.workload_id) "
           "FROM devices d LEFT JOIN records r ON r.device_id = d.id GROUP BY d.id ORDER BY d.key"));
  std::vector<DeviceSummary> out;
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    DeviceSummary d;
    d.device = device_from_columns(s.column_text(0), s.column_text(1), s.column_text(2), s.column_text(3),
                                   s.column_text(4));
    d.records = s.column_int(5);
    d.workloads = s.column_int(6);
    out.push_back(std::move(d));
  }
  if (rc != SQLITE_DONE) return error("reading devices");
  return out;
}

Result<std::vector<WorkloadSummary>> SqliteStore::workloads() {
  Stmt s;
  TP_RETURN_IF_ERROR(s.prepare(
      db_, "SELECT w.key, count(r.id), count(DISTINCT r.device_id), min(CASE WHEN r.error_no = 0 THEN r.mean_cost END) "
           "FROM workloads w LEFT JOIN records r ON r.workload_id = w.id GROUP BY w.id ORDER BY w.key"));
  std::vector<WorkloadSummary> out;
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    WorkloadSummary w;
    w.key = s.column_text(0);
    w.records = s.column_int(1);
    w.devices = s.column_int(2);
    w.best_mean_cost = s.column_real(3);
    out.push_back(std::move(w));
  }
  if (rc != SQLITE_DONE) return error("reading workloads");
  return out;
}


Result<bool> SqliteStore::claim(std::string_view key, std::string_view owner, double lease_s) {
  TP_RETURN_IF_ERROR(exec("BEGIN IMMEDIATE"));
  auto decide = [&]() -> Result<bool> {
    const double now = unix_seconds();
    if (++claims_made_ % 256 == 1) {  // now and then, drop lapsed claims
      Stmt gc;
      TP_RETURN_IF_ERROR(gc.prepare(db_, "DELETE FROM claims WHERE expires < ?1"));
      sqlite3_bind_double(gc.get(), 1, now - 60);
      TP_RETURN_IF_ERROR(step_done(gc, "dropping lapsed claims"));
    }
    Stmt get;
    TP_RETURN_IF_ERROR(get.prepare(db_, "SELECT owner, expires FROM claims WHERE key = ?1"));
    get.text(1, key);
    const int rc = sqlite3_step(get.get());
    if (rc == SQLITE_ROW) {
      std::string holder = get.column_text(0);
      const double expires = sqlite3_column_double(get.get(), 1);
      if (holder != owner && expires > now && !claim_owner_dead(holder)) return false;
    } else if (rc != SQLITE_DONE) {
      return error("reading a claim");
    }
    Stmt put;
    TP_RETURN_IF_ERROR(put.prepare(db_, "INSERT OR REPLACE INTO claims(key, owner, expires) VALUES(?1, ?2, ?3)"));
    put.text(1, key);
    put.text(2, owner);
    sqlite3_bind_double(put.get(), 3, now + lease_s);
    TP_RETURN_IF_ERROR(step_done(put, "writing a claim"));
    return true;
  };
  Result<bool> got = decide();
  if (!got.ok()) {
    (void)exec("ROLLBACK");
    return got;
  }
  TP_RETURN_IF_ERROR(exec("COMMIT"));
  return got;
}

Status SqliteStore::release(std::string_view key, std::string_view owner, double keep_s) {
  Stmt st;
  if (keep_s > 0) {
    // Owner "" is no process: the claim holds until it expires (RecordStore::release).
    TP_RETURN_IF_ERROR(st.prepare(db_, "UPDATE claims SET owner = '', expires = ?3 WHERE key = ?1 AND owner = ?2"));
    sqlite3_bind_double(st.get(), 3, unix_seconds() + keep_s);
  } else {
    TP_RETURN_IF_ERROR(st.prepare(db_, "DELETE FROM claims WHERE key = ?1 AND owner = ?2"));
  }
  st.text(1, key);
  st.text(2, owner);
  return step_done(st, "releasing a claim");
}

Result<StoreStats> SqliteStore::stats() {
  StoreStats st;
  auto count = [&](const char* sql, int64_t& out) -> Status {
    Stmt s;
    TP_RETURN_IF_ERROR(s.prepare(db_, sql));
    if (sqlite3_step(s.get()) != SQLITE_ROW) return error("counting");
    out = s.column_int(0);
    return Status::Ok();
  };
  int64_t version = 0;
  TP_RETURN_IF_ERROR(count("SELECT max(version) FROM schema_version", version));
  st.schema_version = static_cast<int>(version);
  TP_RETURN_IF_ERROR(count("SELECT count(*) FROM records", st.records));
  TP_RETURN_IF_ERROR(count("SELECT count(*) FROM records WHERE error_no <> 0", st.error_records));
  TP_RETURN_IF_ERROR(count("SELECT count(*) FROM workloads", st.workloads));
  TP_RETURN_IF_ERROR(count("SELECT count(*) FROM devices", st.devices));
  TP_RETURN_IF_ERROR(count("SELECT count(DISTINCT config_hash) FROM records", st.configs));
  Stmt f;
  TP_RETURN_IF_ERROR(f.prepare(db_, "SELECT format, count(*) FROM records GROUP BY format ORDER BY format"));
  while (sqlite3_step(f.get()) == SQLITE_ROW)
    st.records_by_format.emplace_back(static_cast<RecordFormat>(f.column_int(0)), f.column_int(1));
  Stmt b;
  TP_RETURN_IF_ERROR(b.prepare(db_, "SELECT component, version FROM build_info ORDER BY component"));
  while (sqlite3_step(b.get()) == SQLITE_ROW) st.build_info.emplace_back(b.column_text(0), b.column_text(1));
  return st;
}

}  // namespace

Result<std::unique_ptr<RecordStore>> open_sqlite_store(const std::string& path, OpenMode mode) {
  struct stat st;
  bool exists = ::stat(path.c_str(), &st) == 0;
  if (!exists && mode == OpenMode::kExisting)
    return Status::NotFound("no database at " + path + "; create it with `tensorperf db init --db " + path + "`");
  // Before SQLite's first use in the process: without memory statistics, SQLite's allocator takes
  // no global mutex (a few percent of a bulk import). Refused (and harmless) when SQLite is already
  // initialised.
  static std::once_flag configured;
  std::call_once(configured, [] { (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); });
  auto open = [&](const std::string& name, int flags) -> Result<std::unique_ptr<RecordStore>> {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(name.c_str(), &db, flags | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
      std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
      sqlite3_close(db);
      return Status::IoError("cannot open the database " + path + ": " + msg);
    }
    auto store = std::make_unique<SqliteStore>(db, path);
    TP_RETURN_IF_ERROR(store->init(mode));
    return std::unique_ptr<RecordStore>(std::move(store));
  };
  if (mode != OpenMode::kRead) return open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  auto store = open(path, SQLITE_OPEN_READONLY);
  if (store.ok() || store.status().code() == StatusCode::kNotFound || store.status().code() == StatusCode::kUnsupported)
    return store;
  // On a read-only mount SQLite cannot create the WAL index (-shm) next to the file: read it as
  // immutable instead (nobody can write it there; a WAL left un-checkpointed is not seen).
  std::string uri = "file:";
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      char buf[4];
      std::snprintf(buf, sizeof(buf), "%%%02X", static_cast<unsigned char>(c));
      uri += buf;
    } else {
      uri += c;
    }
  }
  auto immutable = open(uri + "?immutable=1", SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
  return immutable.ok() ? std::move(immutable) : std::move(store);
}

}  // namespace tensorperf::db
