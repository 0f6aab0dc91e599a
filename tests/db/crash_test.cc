// A writer killed with SIGKILL in the middle of an import leaves a consistent store (a prefix of
// the file, whole batches only); running the import again finishes it.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "db/exporter.h"
#include "process_util.h"
#include "store_test.h"

namespace tensorperf::testing {
namespace {

using CrashTest = StoreTest;

std::string export_all(db::RecordStore& store) {
  std::ostringstream out;
  auto n = db::export_records(store, {}, out);
  EXPECT_TRUE(n.ok()) << n.status().message();
  return out.str();
}

TEST_P(CrashTest, KilledImportLeavesAPrefixAndReimportFinishesIt) {
  // Long enough that the import is still running when the poll below first sees records (SQLite
  // imports a few hundred thousand records a second).
  const int kLines = GetParam() == Backend::kSqlite ? 400000 : 60000;
  constexpr int kBatch = 500;
  std::vector<std::string> lines = make_lines(7, kLines);
  std::string path = temp_dir_ + "/big.log";
  write_lines(path, lines);
  ASSERT_TRUE(open());  // the schema exists before the writer starts, so polling can read it

  pid_t pid = start_import(url_, path, kBatch, path + ".out");
  int64_t seen = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (seen == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    auto store = db::open_store(url_, db::OpenMode::kExisting);
    ASSERT_TRUE(store.ok()) << store.status().message();
    auto stats = (*store)->stats();
    ASSERT_TRUE(stats.ok()) << stats.status().message();
    seen = stats->records;
  }
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  EXPECT_EQ(wait_for(pid), -SIGKILL) << "the import finished before it could be killed; make the file larger";

  auto store = open();
  ASSERT_TRUE(store);
  auto stats = store->stats();
  ASSERT_TRUE(stats.ok());
  int64_t kept = stats->records;
  EXPECT_GT(kept, 0);
  EXPECT_LT(kept, kLines);
  EXPECT_EQ(kept % kBatch, 0) << "a batch was stored in part";
  std::string prefix;
  for (int64_t i = 0; i < kept; ++i) prefix += lines[i] + "\n";
  EXPECT_TRUE(export_all(*store) == prefix) << "the store is not the file's first records in order";

  pid = start_import(url_, path, kBatch, path + ".out2");
  ASSERT_EQ(wait_for(pid), 0) << read_file(path + ".out2");
  std::string report = read_file(path + ".out2");
  EXPECT_EQ(report, std::to_string(kLines - kept) + " " + std::to_string(kept) + " 0\n");
  std::string full;
  for (const auto& l : lines) full += l + "\n";
  EXPECT_TRUE(export_all(*store) == full);
}

TP_INSTANTIATE_BACKENDS(CrashTest);

}  // namespace
}  // namespace tensorperf::testing
