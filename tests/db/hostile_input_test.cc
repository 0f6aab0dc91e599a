// Hostile strings (quotes, ';', SQL, NUL, a huge value) through every text field: stored and
// returned byte for byte, and the store is intact afterwards.
#include <sstream>

#include <gtest/gtest.h>

#include "db/best_configs.h"
#include "db/exporter.h"
#include "db/importer.h"
#include "store_test.h"

namespace tensorperf::testing {
namespace {

using HostileInputTest = StoreTest;

std::vector<std::string> hostile_strings() {
  return {"'; DROP TABLE records; --",
          "\"quoted\" and 'single' and `back`",
          std::string("nul\0inside", 10),
          "$1 ?1 :name @x %s \\x00 \\\\ E'\\n'",
          "\n\t\r\x01\x7f",
          "Robert'); DELETE FROM workloads WHERE ('1'='1",
          std::string(100 << 10, 'x') + "';--"};  // in every field: a line of about 0.7 MiB
}

TEST_P(HostileInputTest, NativeRecordsWithHostileTextInEveryFieldRoundTrip) {
  auto store = open();
  ASSERT_TRUE(store);
  std::vector<measure::Record> records;
  int i = 0;
  for (const std::string& s : hostile_strings()) {
    measure::Record r;
    r.workload_key = "wl:" + s;
    r.device_key = "dev:" + s;
    r.target = s;
    r.provider = s;
    r.config = {{s, s}, {"n", i}};
    r.costs = {1e-3 * (i + 1)};
    r.error_msg = s;
    r.version = s;
    r.timestamp = i++;
    records.push_back(r);
    Status st = db::add_record(*store, r);
    ASSERT_TRUE(st.ok()) << st.message().substr(0, 500);
  }
  std::ostringstream out;
  auto n = db::export_records(*store, {}, out);
  ASSERT_TRUE(n.ok()) << n.status().message().substr(0, 500);
  std::string expected;
  for (const auto& r : records) expected += measure::record_to_line(r) + "\n";
  EXPECT_TRUE(out.str() == expected);
  for (const auto& r : records) {
    auto best = db::best_configs(*store, r.workload_key, r.device_key, 1);
    ASSERT_TRUE(best.ok()) << best.status().message().substr(0, 500);
    ASSERT_EQ(best->records.size(), 1u);
    EXPECT_TRUE(best->records[0].config == r.config.dump());
  }
  auto stats = store->stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->records, static_cast<int64_t>(records.size()));
  EXPECT_EQ(stats->workloads, static_cast<int64_t>(records.size()));
  auto workloads = store->workloads();
  ASSERT_TRUE(workloads.ok());
  EXPECT_EQ(workloads->size(), records.size());

  // Bytes that are not UTF-8 are stored as U+FFFD (in the line and in the columns alike), not
  // refused with an exception; re-importing the exported line finds the same record.
  measure::Record invalid = records[0];
  invalid.workload_key = "bad\xff\xfeutf8";
  ASSERT_TRUE(db::add_record(*store, invalid).ok());
  const std::string replaced = "bad\xef\xbf\xbd\xef\xbf\xbdutf8";
  auto best = db::best_configs(*store, replaced, invalid.device_key, 1);
  ASSERT_TRUE(best.ok());
  ASSERT_EQ(best->records.size(), 1u);
  std::istringstream again(best->records[0].line + "\n");
  auto report = db::import_stream(*store, again, "again.log", {}, {});
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->duplicates, 1);
}

TEST_P(HostileInputTest, TvmLinesWithHostileTargetsAndTaskNamesRoundTrip) {
  auto store = open();
  ASSERT_TRUE(store);
  std::string text;
  int i = 0;
  for (const std::string& s : hostile_strings()) {
    std::string escaped = nlohmann::json(s).dump();  // a JSON string literal
    text += R"({"input": [)" + nlohmann::json("llvm -model=" + s).dump() + ", " + escaped +
            R"(, [1], {}], "config": {"index": )" + std::to_string(i++) +
            R"(, "entity": []}, "result": [[0.5], 0, 1.0, 1.0], "version": 0.2, "tvm_version": )" + escaped + "}\n";
  }
  std::istringstream in(text);
  std::vector<std::string> problems;
  auto report = db::import_stream(*store, in, "hostile.log", {}, [&](const std::string& p) { problems.push_back(p); });
  ASSERT_TRUE(report.ok()) << report.status().message().substr(0, 500);
  EXPECT_EQ(report->skipped, 0) << (problems.empty() ? "" : problems[0].substr(0, 300));
  EXPECT_EQ(report->inserted, static_cast<int64_t>(hostile_strings().size()));
  std::ostringstream out;
  ASSERT_TRUE(db::export_records(*store, {}, out).ok());
  EXPECT_TRUE(out.str() == text);
  // Invalid UTF-8 inside a JSON string is a malformed line, not a stored one.
  std::istringstream bad(std::string("{\"i\": [\"llvm\xff\"]}\n"));
  auto r = db::import_stream(*store, bad, "bad.log", {}, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->skipped, 1);
}

TP_INSTANTIATE_BACKENDS(HostileInputTest);

}  // namespace
}  // namespace tensorperf::testing
