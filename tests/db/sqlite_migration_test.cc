// A store written by tensorperf 0.1.0 (schema version 1: lines and configs in their own columns and
// table) opens with this build, migrates to version 2 (lines in compressed chunks), and keeps every
// record: lines byte for byte, configs, costs, ids and order. Fixtures: tests/db/data/README.md.
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "db/best_configs.h"
#include "db/exporter.h"
#include "db/importer.h"
#include "db/record_store.h"
#include "store_test.h"

namespace tensorperf::testing {
namespace {

namespace fs = std::filesystem;

fs::path fixture(const std::string& name) { return fs::path(TENSORPERF_SOURCE_DIR) / "tests" / "db" / "data" / name; }

class SqliteMigrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tensorperf-migration-XXXXXX";
    ASSERT_TRUE(mkdtemp(tmpl));
    dir_ = tmpl;
    path_ = dir_ + "/store.db";
    fs::copy_file(fixture("store_v1.db"), path_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  int schema_version_on_disk() {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open_v2(path_.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* q = nullptr;
    int v = -1;
    if (sqlite3_prepare_v2(db, "SELECT max(version) FROM schema_version", -1, &q, nullptr) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW)
      v = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    sqlite3_close(db);
    return v;
  }

  std::string dir_, path_;
};

TEST_F(SqliteMigrationTest, VersionOneStoreKeepsEveryRecord) {
  ASSERT_EQ(schema_version_on_disk(), 1);
  auto store = db::open_store(path_, db::OpenMode::kExisting);
  ASSERT_TRUE(store.ok()) << store.status().message();
  EXPECT_EQ(schema_version_on_disk(), 3);

  // Export is what version 1 exported, byte for byte.
  std::ostringstream out;
  auto n = db::export_records(**store, {}, out);
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(*n, 83);
  EXPECT_EQ(out.str(), read_file(fixture("store_v1_export.log").string()));

  // Every field of every record, configs included, is what version 1 had in its tables.
  auto expected = nlohmann::json::parse(read_file(fixture("store_v1_records.json").string()));
  ASSERT_EQ(expected.size(), 83u);
  size_t i = 0;
  Status s = (*store)->scan({}, [&](const db::StoredRecord& r) -> Status {
    if (i >= expected.size()) return Status::Internal("more records than before");
    const auto& e = expected[i++];
    EXPECT_EQ(r.id, e["id"].get<int64_t>());
    EXPECT_EQ(static_cast<int>(r.format), e["format"].get<int>());
    EXPECT_EQ(r.workload_key, e["workload"].get<std::string>());
    EXPECT_EQ(r.device_key, e["device"].get<std::string>());
    EXPECT_EQ(r.config, e["config"].get<std::string>()) << r.id;
    EXPECT_EQ(r.error_no, e["error_no"].get<int>());
    EXPECT_DOUBLE_EQ(r.mean_cost.value_or(-1), e["mean_cost"].is_null() ? -1 : e["mean_cost"].get<double>());
    EXPECT_DOUBLE_EQ(r.timestamp, e["timestamp"].get<double>());
    return Status::Ok();
  });
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(i, expected.size());

  // Best-config queries return the config, and the stats still count configs.
  const auto& first = expected[0];
  auto best = db::best_configs(**store, first["workload"].get<std::string>(), first["device"].get<std::string>(), 1);
  ASSERT_TRUE(best.ok()) << best.status().message();
  ASSERT_EQ(best->records.size(), 1u);
  EXPECT_EQ(best->records[0].config, first["config"].get<std::string>());
  auto stats = (*store)->stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->schema_version, 3);
  EXPECT_EQ(stats->records, 83);
  EXPECT_EQ(stats->configs, 63);  // as version 1 counted them (`tensorperf db stats`)

  // New records go after the migrated ones; re-importing the old ones adds nothing.
  std::istringstream again(read_file(fixture("store_v1_export.log").string()));
  auto report = db::import_stream(**store, again, "again", {}, {});
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->inserted, 0);
  EXPECT_EQ(report->duplicates, 83);
  std::istringstream more(read_file((fs::path(TENSORPERF_TVM_LOGS) / "autotvm" / "vta_v0.10.log").string()));
  report = db::import_stream(**store, more, "vta", {}, {});
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_GT(report->inserted, 0);
  int64_t last = 0;
  s = (*store)->scan({}, [&](const db::StoredRecord& r) -> Status {
    EXPECT_GT(r.id, last);
    last = r.id;
    return Status::Ok();
  });
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(last, 83 + report->inserted);
}

TEST_F(SqliteMigrationTest, ReopeningAMigratedStoreChangesNothing) {
  { ASSERT_TRUE(db::open_store(path_, db::OpenMode::kExisting).ok()); }
  auto size = fs::file_size(path_);
  auto store = db::open_store(path_, db::OpenMode::kExisting);
  ASSERT_TRUE(store.ok()) << store.status().message();
  EXPECT_EQ(schema_version_on_disk(), 3);
  std::ostringstream out;
  ASSERT_TRUE(db::export_records(**store, {}, out).ok());
  EXPECT_EQ(out.str(), read_file(fixture("store_v1_export.log").string()));
  EXPECT_EQ(fs::file_size(path_), size);
}

}  // namespace
}  // namespace tensorperf::testing
