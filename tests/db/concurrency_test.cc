// Several writer processes importing into one store at once lose nothing and store nothing twice.
#include <unistd.h>

#include <filesystem>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "db/exporter.h"
#include "process_util.h"
#include "store_test.h"

namespace tensorperf::testing {
namespace {

using ConcurrencyTest = StoreTest;

TEST_P(ConcurrencyTest, ConcurrentWritersLoseNothing) {
  constexpr int kWriters = 4, kOwn = 3000, kShared = 1000;
  std::vector<std::string> shared = make_lines(1000, kShared);
  std::set<std::string> all(shared.begin(), shared.end());
  std::vector<pid_t> pids;
  for (int w = 0; w < kWriters; ++w) {
    std::vector<std::string> lines = make_lines(w, kOwn);
    // Each writer has the shared lines too, spread through its file.
    std::vector<std::string> file;
    for (int i = 0; i < kOwn; ++i) {
      file.push_back(lines[i]);
      if (i % 3 == 0 && i / 3 < kShared) file.push_back(shared[i / 3]);
    }
    all.insert(lines.begin(), lines.end());
    std::string path = temp_dir_ + "/writer" + std::to_string(w) + ".log";
    write_lines(path, file);
    pids.push_back(start_import(url_, path, 250, path + ".out"));
  }
  for (size_t w = 0; w < pids.size(); ++w)
    EXPECT_EQ(wait_for(pids[w]), 0) << read_file(temp_dir_ + "/writer" + std::to_string(w) + ".log.out");
  auto store = open();
  ASSERT_TRUE(store);
  auto stats = store->stats();
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->records, static_cast<int64_t>(all.size()));
  std::ostringstream out;
  ASSERT_TRUE(db::export_records(*store, {}, out).ok());
  std::set<std::string> exported;
  std::istringstream in(out.str());
  for (std::string l; std::getline(in, l);) EXPECT_TRUE(exported.insert(l).second) << "stored twice: " << l;
  EXPECT_TRUE(exported == all);
}

TP_INSTANTIATE_BACKENDS(ConcurrencyTest);

// Two processes that create a new SQLite store at once: both import everything, 100 times over.
TEST(ConcurrentCreation, TwoProcessesCreatingOneStoreBothStoreTheirRecords) {
  const std::string dir = ::testing::TempDir() + "tp-create-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const std::vector<std::string> a = make_lines(1, 20), b = make_lines(2, 20);
  write_lines(dir + "/a.log", a);
  write_lines(dir + "/b.log", b);
  int failures = 0;
  for (int pair = 0; pair < 100; ++pair) {
    const std::string db = dir + "/store" + std::to_string(pair) + ".db";
    pid_t p1 = start_import(db, dir + "/a.log", 100, dir + "/a.out");
    pid_t p2 = start_import(db, dir + "/b.log", 100, dir + "/b.out");
    int r1 = wait_for(p1), r2 = wait_for(p2);
    if (r1 != 0 || r2 != 0) {
      ++failures;
      ADD_FAILURE() << "pair " << pair << ": " << read_file(dir + "/a.out") << " / " << read_file(dir + "/b.out");
      continue;
    }
    auto store = db::open_store(db, db::OpenMode::kRead);
    ASSERT_TRUE(store.ok()) << store.status().message();
    EXPECT_EQ((*store)->stats()->records, 40);
  }
  EXPECT_EQ(failures, 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tensorperf::testing
