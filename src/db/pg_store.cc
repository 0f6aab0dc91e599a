#include "db/pg_store.h"

#include <cstdio>
#include <utility>

#include <nlohmann/json.hpp>
#include <pqxx/pqxx>

#include "db/content_hash.h"
#include "db/store_url.h"

namespace tensorperf::db {
namespace {

constexpr int kMaxAttempts = 8;  // per batch, when concurrent writers deadlock
constexpr int64_t kMigrationLock = 0x7470646273636865;  // advisory lock id held while migrating
constexpr int kScanPage = 5000;

// Schema migrations, applied in order; migration i brings the store to version i + 1. Never edit
// one that has shipped: append a new one. Keys are unique by their hash: btree entries are limited
// to about 2.7 kB and a key may be longer.
constexpr const char* kMigrations[] = {
    R"sql(
CREATE TABLE build_info(component TEXT PRIMARY KEY, version TEXT NOT NULL, recorded_at TIMESTAMPTZ NOT NULL);
CREATE TABLE devices(id BIGSERIAL PRIMARY KEY, key_hash BYTEA NOT NULL UNIQUE, key BYTEA NOT NULL,
                     target BYTEA NOT NULL, target_keys BYTEA NOT NULL, model BYTEA NOT NULL, mcpu BYTEA NOT NULL);
CREATE TABLE workloads(id BIGSERIAL PRIMARY KEY, key_hash BYTEA NOT NULL UNIQUE, key BYTEA NOT NULL);
CREATE TABLE configs(id BIGSERIAL PRIMARY KEY, hash BYTEA NOT NULL UNIQUE, provider BYTEA NOT NULL, body BYTEA NOT NULL);
CREATE TABLE records(id BIGSERIAL PRIMARY KEY, hash BYTEA NOT NULL UNIQUE, format INTEGER NOT NULL,
                     workload_id BIGINT NOT NULL REFERENCES workloads(id),
                     device_id BIGINT NOT NULL REFERENCES devices(id),
                     config_id BIGINT NOT NULL REFERENCES configs(id),
                     error_no INTEGER NOT NULL, mean_cost DOUBLE PRECISION, costs BYTEA NOT NULL,
                     build_time DOUBLE PRECISION NOT NULL, timestamp DOUBLE PRECISION NOT NULL,
                     version BYTEA NOT NULL, line BYTEA NOT NULL);
CREATE INDEX records_best ON records(workload_id, device_id, mean_cost, id) WHERE error_no = 0;
)sql",
    // 2: work claims of the runs that share the store (RecordStore::claim).
    R"sql(
CREATE TABLE claims(key_hash BYTEA PRIMARY KEY, owner TEXT NOT NULL, expires DOUBLE PRECISION NOT NULL);
)sql",
};
constexpr int kSchemaVersion = static_cast<int>(std::size(kMigrations));

constexpr const char* kStagingTable = R"sql(
CREATE TEMP TABLE IF NOT EXISTS tp_staging(
  seq BIGINT, hash BYTEA, format INTEGER, workload_hash BYTEA, workload BYTEA, device_hash BYTEA, device BYTEA,
  device_target BYTEA, device_keys BYTEA, device_model BYTEA, device_mcpu BYTEA, config_hash BYTEA,
  provider BYTEA, config BYTEA, error_no INTEGER, mean_cost DOUBLE PRECISION, costs BYTEA,
  build_time DOUBLE PRECISION, ts DOUBLE PRECISION, version BYTEA, line BYTEA) ON COMMIT DELETE ROWS
)sql";

constexpr const char* kMergeStaging[] = {
    "INSERT INTO workloads(key_hash, key) SELECT DISTINCT ON (workload_hash) workload_hash, workload "
    "FROM tp_staging ORDER BY workload_hash ON CONFLICT DO NOTHING",
    "INSERT INTO devices(key_hash, key, target, target_keys, model, mcpu) SELECT DISTINCT ON (device_hash) "
    "device_hash, device, device_target, device_keys, device_model, device_mcpu FROM tp_staging "
    "ORDER BY device_hash ON CONFLICT DO NOTHING",
    "INSERT INTO configs(hash, provider, body) SELECT DISTINCT ON (config_hash) config_hash, provider, config "
    "FROM tp_staging ORDER BY config_hash ON CONFLICT DO NOTHING",
};
constexpr const char* kMergeRecords =
    "INSERT INTO records(hash, format, workload_id, device_id, config_id, error_no, mean_cost, costs, build_time, "
    "timestamp, version, line) SELECT s.hash, s.format, w.id, d.id, c.id, s.error_no, "
    "CASE WHEN s.error_no = 0 THEN s.mean_cost END, s.costs, s.build_time, s.ts, s.version, s.line "
    "FROM tp_staging s JOIN workloads w ON w.key_hash = s.workload_hash JOIN devices d ON d.key_hash = s.device_hash "
    "JOIN configs c ON c.hash = s.config_hash ORDER BY s.seq ON CONFLICT (hash) DO NOTHING";

// A bytea value in COPY text form (stream_to escapes the backslash).
std::string bytea(std::string_view raw) { return "\\x" + to_hex(raw); }

std::string real(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// libpq messages span lines ("...failed: Connection refused\n\tIs the server running..."); ours are one line.
std::string one_line(std::string_view msg) {
  std::string out;
  for (char c : msg) {
    if (c == '\n' || c == '\t' || c == '\r') {
      if (!out.empty() && out.back() != ' ') out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string bytes(const pqxx::field& f) { return f.is_null() ? std::string() : pqxx::binarystring(f).str(); }

DeviceDescription device_from_row(const pqxx::row& row, int first) {
  DeviceDescription d;
  d.key = bytes(row[first]);
  d.target = bytes(row[first + 1]);
  auto keys = nlohmann::json::parse(bytes(row[first + 2]), nullptr, false);
  if (keys.is_array())
    for (const auto& k : keys)
      if (k.is_string()) d.keys.push_back(k.get<std::string>());
  d.model = bytes(row[first + 3]);
  d.mcpu = bytes(row[first + 4]);
  return d;
}

class PgStore final : public RecordStore {
 public:
  PgStore(std::unique_ptr<pqxx::connection> conn, std::string url) : conn_(std::move(conn)), url_(std::move(url)) {}

  Status init(OpenMode mode);

  std::string_view backend() const override { return "postgresql"; }
  Status insert(std::span<const ParsedRecord> batch, InsertCounts& counts) override;
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
  Status failure(const std::exception& e) const {
    return Status::Internal("postgresql (" + redact_url(url_) + "): " + scrub_secrets(one_line(e.what()), url_));
  }
  int64_t insert_once(std::span<const ParsedRecord> batch);

  std::unique_ptr<pqxx::connection> conn_;
  int64_t claims_made_ = 0;
  std::string url_;
};

Status PgStore::init(OpenMode mode) {
  try {
    pqxx::work tx(*conn_);
    tx.exec_params("SELECT pg_advisory_xact_lock($1)", kMigrationLock);
    int current = 0;
    bool exists = !tx.exec("SELECT to_regclass('schema_version')")[0][0].is_null();
    if (exists) {
      current = tx.exec("SELECT coalesce(max(version), 0) FROM schema_version")[0][0].as<int>();
    } else if (mode != OpenMode::kCreate) {
      return Status::NotFound("no tensorperf database at " + redact_url(url_) + "; run `tensorperf db init --db URL`");
    } else {
      tx.exec("CREATE TABLE schema_version(version INTEGER NOT NULL, applied_at TIMESTAMPTZ NOT NULL)");
    }
    if (current > kSchemaVersion)
      return Status::Unsupported(redact_url(url_) + " has schema version " + std::to_string(current) +
                                 ", newer than this build's " + std::to_string(kSchemaVersion) + "; upgrade tensorperf");
    if (mode == OpenMode::kRead && current < 1)
      return Status::Unsupported(redact_url(url_) + " has schema version " + std::to_string(current) +
                                 "; open it once with a command that writes (e.g. `tensorperf db init`) to migrate it");
    for (int v = current; v < kSchemaVersion; ++v) {
      tx.exec(kMigrations[v]);
      tx.exec_params("INSERT INTO schema_version(version, applied_at) VALUES($1, now())", v + 1);
    }
    if (current < kSchemaVersion) {
      std::string server = tx.exec("SHOW server_version")[0][0].as<std::string>();
      for (auto [c, v] : {std::pair<std::string, std::string>{"tensorperf", std::string(measure::tensorperf_version())},
                          {"postgresql", server}})
        tx.exec_params("INSERT INTO build_info(component, version, recorded_at) VALUES($1, $2, now()) "
                       "ON CONFLICT (component) DO UPDATE SET version = excluded.version, recorded_at = now()",
                       c, v);
    }
    tx.commit();
    pqxx::nontransaction nt(*conn_);
    nt.exec(kStagingTable);
    conn_->prepare("top",
                   "SELECT r.id, r.format, c.body, r.line, r.error_no, r.mean_cost, r.timestamp FROM records r "
                   "JOIN configs c ON c.id = r.config_id "
                   "WHERE r.workload_id = (SELECT id FROM workloads WHERE key_hash = $1) "
                   "AND r.device_id = (SELECT id FROM devices WHERE key_hash = $2) AND r.error_no = 0 "
                   "ORDER BY r.mean_cost, r.id LIMIT $3");
    return Status::Ok();
  } catch (const std::exception& e) {
    return failure(e);
  }
}

int64_t PgStore::insert_once(std::span<const ParsedRecord> batch) {
  pqxx::work tx(*conn_);
  {
    pqxx::stream_to copy(tx, "tp_staging");
    int64_t seq = 0;
    std::string config_hash;
    for (const ParsedRecord& r : batch) {
      content_hash_into({r.provider, std::string_view("\0", 1), r.config}, config_hash);
      std::string keys = nlohmann::json(r.device.keys).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      copy << std::make_tuple(seq++, bytea(r.hash), static_cast<int>(r.format), bytea(content_hash(r.workload_key)),
                              bytea(r.workload_key), bytea(content_hash(r.device.key)), bytea(r.device.key),
                              bytea(r.device.target), bytea(keys), bytea(r.device.model), bytea(r.device.mcpu),
                              bytea(config_hash), bytea(r.provider), bytea(r.config), r.error_no,
                              real(r.mean_cost.value_or(0)), bytea(r.costs), real(r.build_time_s), real(r.timestamp),
                              bytea(r.version), bytea(r.line));
    }
    copy.complete();
  }
  // Temporary tables get no statistics from autovacuum; without them the planner joins the batch
  // to the whole configs table by a sequential scan.
  tx.exec("ANALYZE tp_staging");
  for (const char* sql : kMergeStaging) tx.exec(sql);
  pqxx::result inserted = tx.exec(kMergeRecords);
  tx.commit();
  return static_cast<int64_t>(inserted.affected_rows());
}

Status PgStore::insert(std::span<const ParsedRecord> batch, InsertCounts& counts) {
  if (batch.empty()) return Status::Ok();
  for (int attempt = 1;; ++attempt) {
    try {
      int64_t inserted = insert_once(batch);
      counts.inserted += inserted;
      counts.duplicates += static_cast<int64_t>(batch.size()) - inserted;
      return Status::Ok();
    } catch (const pqxx::transaction_rollback& e) {
      // Deadlock or serialization failure with a concurrent writer: the batch was rolled back.
      if (attempt == kMaxAttempts) return failure(e);
    } catch (const std::exception& e) {
      return failure(e);
    }
  }
}

Result<std::vector<StoredRecord>> PgStore::top_records(std::string_view workload_key, std::string_view device_key,
                                                       int k) {
  try {
    pqxx::nontransaction nt(*conn_);
    pqxx::result rows = nt.exec_prepared("top", pqxx::binarystring(content_hash(workload_key)),
                                         pqxx::binarystring(content_hash(device_key)), k);
    std::vector<StoredRecord> out;
    out.reserve(rows.size());
    for (const auto& row : rows) {
      StoredRecord r;
      r.id = row[0].as<int64_t>();
      r.format = static_cast<RecordFormat>(row[1].as<int>());
      r.workload_key = std::string(workload_key);
      r.device_key = std::string(device_key);
      r.config = bytes(row[2]);
      r.line = bytes(row[3]);
      r.error_no = row[4].as<int>();
      r.mean_cost = row[5].as<double>();
      r.timestamp = row[6].as<double>();
      out.push_back(std::move(r));
    }
    return out;
  } catch (const std::exception& e) {
    return failure(e);
  }
}

Status PgStore::scan(const ScanFilter& filter, const std::function<Status(const StoredRecord&)>& visit) {
  try {
    std::string workload_hash = filter.workload_key.empty() ? std::string() : content_hash(filter.workload_key);
    std::string device_hash = filter.device_key.empty() ? std::string() : content_hash(filter.device_key);
    int format = filter.format ? static_cast<int>(*filter.format) : 0;
    int64_t last = 0;
    for (;;) {
      pqxx::result rows;
      {
        pqxx::nontransaction nt(*conn_);
        rows = nt.exec_params(
            "SELECT r.id, r.format, w.key, d.key, c.body, r.line, r.error_no, r.mean_cost, r.timestamp "
            "FROM records r JOIN workloads w ON w.id = r.workload_id JOIN devices d ON d.id = r.device_id "
            "JOIN configs c ON c.id = r.config_id WHERE r.id > $1 "
            "AND (length($2::bytea) = 0 OR w.key_hash = $2) AND (length($3::bytea) = 0 OR d.key_hash = $3) "
            "AND ($4 = 0 OR r.format = $4) ORDER BY r.id LIMIT $5",
            last, pqxx::binarystring(workload_hash), pqxx::binarystring(device_hash), format, kScanPage);
      }
      for (const auto& row : rows) {
        StoredRecord r;
        r.id = row[0].as<int64_t>();
        r.format = static_cast<RecordFormat>(row[1].as<int>());
        r.workload_key = bytes(row[2]);
        r.device_key = bytes(row[3]);
        r.config = bytes(row[4]);
        r.line = bytes(row[5]);
        r.error_no = row[6].as<int>();
        if (!row[7].is_null()) r.mean_cost = row[7].as<double>();
        r.timestamp = row[8].as<double>();
        last = r.id;
        TP_RETURN_IF_ERROR(visit(r));
      }
      if (rows.size() < static_cast<size_t>(kScanPage)) return Status::Ok();
    }
  } catch (const std::exception& e) {
    return failure(e);
  }
}

Result<std::vector<DeviceDescription>> PgStore::device_descriptions() {
  try {
    pqxx::nontransaction nt(*conn_);
    std::vector<DeviceDescription> out;
    for (const auto& row : nt.exec("SELECT key, target, target_keys, model, mcpu FROM devices ORDER BY id"))
      out.push_back(device_from_row(row, 0));
    return out;
  } catch (const std::exception& e) {
    return failure(e);
  }
}

Result<std::vector<DeviceSummary>> PgStore::devices() {
  try {
    pqxx::nontransaction nt(*conn_);
    std::vector<DeviceSummary> out;
    for (const auto& row : nt.exec(
             "SELECT d.key, d.target, d.target_keys, d.model, d.mcpu, count(r.id), count(DISTINCT r.workload_id) "
             "FROM devices d LEFT JOIN records r ON r.device_id = d.id GROUP BY d.id ORDER BY d.key")) {
      DeviceSummary d;
      d.device = device_from_row(row, 0);
      d.records = row[5].as<int64_t>();
      d.workloads = row[6].as<int64_t>();
      out.push_back(std::move(d));
    }
    return out;
  } catch (const std::exception& e) {
    return failure(e);
  }
}

Result<std::vector<WorkloadSummary>> PgStore::workloads() {
  try {
    pqxx::nontransaction nt(*conn_);
    std::vector<WorkloadSummary> out;
    for (const auto& row : nt.exec("SELECT w.key, count(r.id), count(DISTINCT r.device_id), min(r.mean_cost) "
                                   "FROM workloads w LEFT JOIN records r ON r.workload_id = w.id "
                                   "GROUP BY w.id ORDER BY w.key")) {
      WorkloadSummary w;
      w.key = bytes(row[0]);
      w.records = row[1].as<int64_t>();
      w.devices = row[2].as<int64_t>();
      if (!row[3].is_null()) w.best_mean_cost = row[3].as<double>();
      out.push_back(std::move(w));
    }
    return out;
  } catch (const std::exception& e) {
    return failure(e);
  }
}

Result<bool> PgStore::claim(std::string_view key, std::string_view owner, double lease_s) {
  try {
    const std::string hash = content_hash(key);
    if (++claims_made_ % 256 == 1) {  // now and then, drop lapsed claims (in a transaction of their own)
      pqxx::work gc(*conn_);
      gc.exec("DELETE FROM claims WHERE expires < extract(epoch FROM clock_timestamp()) - 60");
      gc.commit();
    }
    pqxx::work tx(*conn_);
    const double now = tx.exec("SELECT extract(epoch FROM clock_timestamp())")[0][0].as<double>();
    pqxx::result held = tx.exec_params("SELECT owner, expires FROM claims WHERE key_hash = $1 FOR UPDATE", bytea(hash));
    if (!held.empty()) {
      const std::string holder = held[0][0].as<std::string>();
      if (holder != owner && held[0][1].as<double>() > now && !claim_owner_dead(holder)) return false;
    }
    tx.exec_params(
        "INSERT INTO claims(key_hash, owner, expires) VALUES($1, $2, $3) "
        "ON CONFLICT (key_hash) DO UPDATE SET owner = excluded.owner, expires = excluded.expires",
        bytea(hash), std::string(owner), now + lease_s);
    tx.commit();
    return true;
  } catch (const pqxx::transaction_rollback&) {
    return false;  // another run claimed it at the same moment
  } catch (const std::exception& e) {
    return failure(e);
  }
}

Status PgStore::release(std::string_view key, std::string_view owner, double keep_s) {
  try {
    pqxx::work tx(*conn_);
    if (keep_s > 0) {
      // Owner "" is no process: the claim holds until it expires (RecordStore::release).
      tx.exec_params(
          "UPDATE claims SET owner = '', expires = extract(epoch FROM clock_timestamp()) + $3 "
          "WHERE key_hash = $1 AND owner = $2",
          bytea(content_hash(key)), std::string(owner), keep_s);
    } else {
      tx.exec_params("DELETE FROM claims WHERE key_hash = $1 AND owner = $2", bytea(content_hash(key)), std::string(owner));
    }
    tx.commit();
    return Status::Ok();
  } catch (const std::exception& e) {
    return failure(e);
  }
}

Result<StoreStats> PgStore::stats() {
  try {
    pqxx::nontransaction nt(*conn_);
    StoreStats st;
    auto row = nt.exec(
        "SELECT (SELECT max(version) FROM schema_version), (SELECT count(*) FROM records), "
        "(SELECT count(*) FROM records WHERE error_no <> 0), (SELECT count(*) FROM workloads), "
        "(SELECT count(*) FROM devices), (SELECT count(*) FROM configs)")[0];
    st.schema_version = row[0].as<int>();
    st.records = row[1].as<int64_t>();
    st.error_records = row[2].as<int64_t>();
    st.workloads = row[3].as<int64_t>();
    st.devices = row[4].as<int64_t>();
    st.configs = row[5].as<int64_t>();
    for (const auto& r : nt.exec("SELECT format, count(*) FROM records GROUP BY format ORDER BY format"))
      st.records_by_format.emplace_back(static_cast<RecordFormat>(r[0].as<int>()), r[1].as<int64_t>());
    for (const auto& r : nt.exec("SELECT component, version FROM build_info ORDER BY component"))
      st.build_info.emplace_back(r[0].as<std::string>(), r[1].as<std::string>());
    return st;
  } catch (const std::exception& e) {
    return failure(e);
  }
}

}  // namespace

Result<std::unique_ptr<RecordStore>> open_pg_store(const std::string& url, OpenMode mode) {
  std::unique_ptr<pqxx::connection> conn;
  try {
    conn = std::make_unique<pqxx::connection>(url);
  } catch (const std::exception& e) {
    return Status::IoError("cannot connect to " + redact_url(url) + ": " + scrub_secrets(one_line(e.what()), url));
  }
  auto store = std::make_unique<PgStore>(std::move(conn), url);
  TP_RETURN_IF_ERROR(store->init(mode));
  return std::unique_ptr<RecordStore>(std::move(store));
}

}  // namespace tensorperf::db
