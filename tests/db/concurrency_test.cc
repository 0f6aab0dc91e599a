// Several writer processes importing into one store at once lose nothing and store nothing twice.
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

}  // namespace
}  // namespace tensorperf::testing
