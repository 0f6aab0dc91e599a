#include "measure/record_sink.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "measure/measured_index.h"

namespace tensorperf::measure {
namespace {

namespace fs = std::filesystem;

Record record(int tile, ErrorCode e = ErrorCode::kNoError) {
  Record r;
  r.workload_key = "relu|float32[1,4,16,16]||";
  r.device_key = "x86_64-test-avx2-fma-t1";
  r.target = "x86-64-linux-avx-avx2-f16c-fma-sse41";
  r.provider = "fake";
  r.config = {{"tile", tile}};
  r.error = e;
  if (e == ErrorCode::kNoError) r.costs = {1e-3, 2e-3};
  r.timestamp = 1.7e9;
  return r;
}

class RecordSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (fs::temp_directory_path() / ("tp-sink-" + std::to_string(::getpid()) + ".jsonl")).string();
    fs::remove(path_);
  }
  void TearDown() override { fs::remove(path_); }
  std::string path_;
};

TEST_F(RecordSinkTest, WrittenRecordsReadBackAtOnce) {
  auto sink = JsonLinesSink::open(path_);
  ASSERT_TRUE(sink.ok());
  ASSERT_TRUE((*sink)->write(record(1)).ok());
  ASSERT_TRUE((*sink)->write(record(2, ErrorCode::kRunTimeoutError)).ok());
  // Flushed per record: readable while the sink is still open.
  auto file = read_record_file(path_);
  ASSERT_TRUE(file.ok());
  ASSERT_EQ(file->records.size(), 2u);
  EXPECT_EQ(file->bad_lines, 0);
  EXPECT_EQ(file->records[0].config["tile"], 1);
  EXPECT_EQ(file->records[1].error, ErrorCode::kRunTimeoutError);
}

TEST_F(RecordSinkTest, MissingFileIsEmpty) {
  auto file = read_record_file(path_);
  ASSERT_TRUE(file.ok());
  EXPECT_TRUE(file->records.empty());
}

TEST_F(RecordSinkTest, TornLastLineIsSkippedAndClosedBeforeAppending) {
  {
    std::ofstream out(path_);
    out << record_to_line(record(1)) << "\n" << record_to_line(record(2)).substr(0, 40);
  }
  auto sink = JsonLinesSink::open(path_);
  ASSERT_TRUE(sink.ok());
  ASSERT_TRUE((*sink)->write(record(3)).ok());
  auto file = read_record_file(path_);
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->bad_lines, 1);
  ASSERT_EQ(file->records.size(), 2u);
  EXPECT_EQ(file->records[1].config["tile"], 3);
}

TEST_F(RecordSinkTest, UnwritablePathIsAnIoError) {
  auto sink = JsonLinesSink::open("/nonexistent-dir/records.jsonl");
  EXPECT_EQ(sink.status().code(), StatusCode::kIoError);
  EXPECT_NE(sink.status().message().find("/nonexistent-dir/records.jsonl"), std::string::npos);
}

TEST(MeasuredIndex, FindsByWorkloadDeviceProviderAndConfig) {
  MeasuredIndex index;
  index.add(record(1));
  index.add(record(2, ErrorCode::kCompileHostError));
  Record again = record(1);
  again.costs = {9.0};
  index.add(again);  // the first record of a point wins
  EXPECT_EQ(index.size(), 2u);
  const Record* r = index.find(record(1).workload_key, record(1).device_key, "fake", {{"tile", 1}});
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->costs.size(), 2u);
  EXPECT_NE(index.find(record(1).workload_key, record(1).device_key, "fake", {{"tile", 2}}), nullptr);
  EXPECT_EQ(index.find(record(1).workload_key, record(1).device_key, "fake", {{"tile", 4}}), nullptr);
  EXPECT_EQ(index.find(record(1).workload_key, "other-device", "fake", {{"tile", 1}}), nullptr);
  EXPECT_EQ(index.find(record(1).workload_key, record(1).device_key, "halide", {{"tile", 1}}), nullptr);
}

}  // namespace
}  // namespace tensorperf::measure
