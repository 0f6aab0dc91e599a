// The feature cache: entries round-trip, a second open reads what the first computed, files that
// are not feature caches are refused, and only the most recent fingerprints are kept.
#include "features/feature_cache.h"

#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "kernels/halide/halide_provider.h"
#include "test_workloads.h"

namespace tensorperf::features {
namespace {

using kernels::Config;
using kernels::testing::make_workload;

constexpr const char* kAvx2 = "x86-64-linux-avx-avx2-f16c-fma-sse41";

void expect_same(const ProgramFeatures& a, const ProgramFeatures& b) {
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.pooled, b.pooled);
  EXPECT_EQ(a.leaves, b.leaves);
  ASSERT_EQ(a.positions.size(), b.positions.size());
  for (size_t i = 0; i < a.positions.size(); ++i) {
    EXPECT_EQ(a.positions[i].preorder, b.positions[i].preorder);
    EXPECT_EQ(a.positions[i].depth, b.positions[i].depth);
    EXPECT_EQ(a.positions[i].parent_preorder, b.positions[i].parent_preorder);
  }
}

// A Halide and a oneDNN program of one small convolution.
std::vector<ProgramRef> two_programs() {
  ir::Workload conv = make_workload(ir::OpKind::kConv2d, {{1, 16, 8, 8}, {32, 16, 3, 3}, {32}},
                                    ir::Attrs().set("pads", std::vector<int64_t>{1, 1, 1, 1}));
  return {{conv, kernels::halide::halide_provider().default_config(conv), kAvx2, false},
          {conv, Config{"onednn", {{"format", "nhwc"}, {"algorithm", "direct"}}}, kAvx2, false}};
}

class FeatureCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("tp-feature-cache-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    path_ = (dir_ / "sub" / "features.sqlite").string();  // open() creates the directory
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // Runs `sql` on the file directly.
  void exec(const std::string& sql) {
    std::filesystem::create_directories(std::filesystem::path(path_).parent_path());
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    char* message = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
    EXPECT_EQ(rc, SQLITE_OK) << (message ? message : "");
    sqlite3_free(message);
    sqlite3_close(db);
  }
  int64_t count(const std::string& sql) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* s = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK);
    EXPECT_EQ(sqlite3_step(s), SQLITE_ROW);
    const int64_t n = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return n;
  }
  std::filesystem::path dir_;
  std::string path_;
};

TEST(FeatureCacheEntry, RoundTripsAndRejectsDamagedBytes) {
  ProgramFeatures f;
  f.kind = SampleKind::kLoopNest;
  f.pooled = {1.5f, 0.0f, -3.25f, 1e30f};
  f.leaves = {{1, 2, 3}, {4, 5, 6}};
  f.positions = {{1, 1, 0}, {3, 2, 2}};
  const std::string bytes = encode_program_features(f);
  Result<ProgramFeatures> back = decode_program_features(bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  expect_same(f, *back);

  EXPECT_FALSE(decode_program_features("").ok());
  EXPECT_FALSE(decode_program_features(bytes.substr(0, bytes.size() / 2)).ok());
  std::string flipped = bytes;
  flipped[flipped.size() / 2] = static_cast<char>(flipped[flipped.size() / 2] ^ 0x5a);
  Result<ProgramFeatures> damaged = decode_program_features(flipped);
  if (damaged.ok()) {  // zstd frames carry no checksum by default: a flip may decode to other values
    EXPECT_FALSE(damaged->pooled == f.pooled && damaged->leaves == f.leaves);
  }
}

TEST_F(FeatureCacheTest, ASecondOpenReadsWhatTheFirstComputed) {
  const std::vector<ProgramRef> programs = two_programs();
  std::vector<Result<ProgramFeatures>> direct = program_features(programs);
  for (const auto& d : direct) ASSERT_TRUE(d.ok()) << d.status().message();
  {
    auto cache = FeatureCache::open(path_);
    ASSERT_TRUE(cache.ok()) << cache.status().message();
    std::vector<Result<ProgramFeatures>> first = (*cache)->features(programs);
    EXPECT_EQ((*cache)->hits(), 0u);
    EXPECT_EQ((*cache)->computed(), 2u);
    EXPECT_EQ((*cache)->write_errors(), 0u);
    ASSERT_EQ(first.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
      ASSERT_TRUE(first[i].ok());
      expect_same(*direct[i], *first[i]);
    }
  }
  EXPECT_EQ(count("SELECT count(*) FROM features"), 2);
  auto cache = FeatureCache::open(path_);
  ASSERT_TRUE(cache.ok()) << cache.status().message();
  // In another order, with one program the file has not seen (the convolution chained).
  std::vector<ProgramRef> again = {programs[1], programs[0], programs[0]};
  again[2].chained = true;
  std::vector<Result<ProgramFeatures>> second = (*cache)->features(again);
  EXPECT_EQ((*cache)->hits(), 2u);
  EXPECT_EQ((*cache)->computed(), 1u);
  ASSERT_TRUE(second[0].ok() && second[1].ok() && second[2].ok());
  expect_same(*direct[1], *second[0]);
  expect_same(*direct[0], *second[1]);
  Result<ProgramFeatures> chained = program_features(again[2].workload, again[2].config, kAvx2, true);
  ASSERT_TRUE(chained.ok());
  expect_same(*chained, *second[2]);
  EXPECT_NE(second[2]->pooled, second[1]->pooled);  // the chained column differs: a key of its own
}

TEST_F(FeatureCacheTest, HostTargetsAndFailuresAreNotKept) {
  std::vector<ProgramRef> programs = two_programs();
  programs[0].target = "host";
  programs[1].config = Config{"onednn", {{"format", "no such format"}}};
  auto cache = FeatureCache::open(path_);
  ASSERT_TRUE(cache.ok()) << cache.status().message();
  std::vector<Result<ProgramFeatures>> f = (*cache)->features(programs);
  EXPECT_TRUE(f[0].ok());
  EXPECT_FALSE(f[1].ok());
  EXPECT_EQ(count("SELECT count(*) FROM features"), 0);
  (*cache)->features(programs);
  EXPECT_EQ((*cache)->hits(), 0u);
  EXPECT_EQ((*cache)->computed(), 4u);
}

TEST_F(FeatureCacheTest, OnlyTheMostRecentFingerprintsAreKept) {
  auto first = FeatureCache::open(path_);
  ASSERT_TRUE(first.ok()) << first.status().message();
  const std::string mine = (*first)->fingerprint();
  EXPECT_EQ(mine.size(), 32u);
  EXPECT_EQ(mine.find_first_not_of("0123456789abcdef"), std::string::npos);
  first->reset();
  // Five older builds' entries, the oldest first.
  for (int i = 0; i < 5; ++i)
    exec("INSERT INTO fingerprints VALUES('old" + std::to_string(i) + "', " + std::to_string(1000 + i) +
         "); INSERT INTO features VALUES('old" + std::to_string(i) + "', x'01', x'02')");
  auto cache = FeatureCache::open(path_);
  ASSERT_TRUE(cache.ok()) << cache.status().message();
  EXPECT_EQ(count("SELECT count(*) FROM fingerprints"), kKeptFingerprints);
  EXPECT_EQ(count("SELECT count(*) FROM fingerprints WHERE fingerprint = '" + mine + "'"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM fingerprints WHERE fingerprint IN ('old0', 'old1')"), 0);
  EXPECT_EQ(count("SELECT count(*) FROM features"), 3);  // old2's, old3's and old4's; this build has none yet
}

TEST_F(FeatureCacheTest, RefusesFilesThatAreNotFeatureCaches) {
  exec("CREATE TABLE records(id INTEGER PRIMARY KEY)");
  auto other = FeatureCache::open(path_);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("not a feature cache"), std::string::npos) << other.status().message();

  std::filesystem::remove_all(dir_);
  exec("PRAGMA user_version = 99");
  auto newer = FeatureCache::open(path_);
  ASSERT_FALSE(newer.ok());
  EXPECT_NE(newer.status().message().find("newer"), std::string::npos) << newer.status().message();

  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_ / "sub");
  {
    std::FILE* f = std::fopen(path_.c_str(), "w");
    std::fputs("not a database at all, but long enough to have a header of some kind......\n", f);
    std::fclose(f);
  }
  auto text = FeatureCache::open(path_);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find(path_), std::string::npos) << text.status().message();
}

}  // namespace
}  // namespace tensorperf::features
