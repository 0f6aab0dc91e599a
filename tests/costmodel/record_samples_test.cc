// Samples from a store's records: a record with native costs gives a second, chained sample.
#include "costmodel/record_samples.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <vector>

#include <gtest/gtest.h>

#include "db/record_store.h"
#include "features/program_features.h"
#include "kernels/provider.h"

namespace tensorperf::costmodel {
namespace {

size_t chained_column() { return program_column("config.chained_io"); }

// Each test has a store of its own in a fresh directory.
class RecordSamples : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           (std::string("tp-record-samples-") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    auto store = db::open_store((dir_ / "s.db").string(), db::OpenMode::kCreate);
    ASSERT_TRUE(store.ok()) << store.status().message();
    store_ = std::move(*store);
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  // A record of oneDNN's default config of `workload_key` on `device`, with no costs yet.
  static measure::Record onednn_default(const std::string& workload_key, const measure::Device& device) {
    const kernels::Provider& onednn = *kernels::find_provider("onednn").value();
    measure::Record r;
    r.workload_key = workload_key;
    r.device_key = device.key();
    r.target = device.target;
    r.provider = "onednn";
    r.config = onednn.default_config(*ir::parse_workload_key(workload_key)).knobs;
    return r;
  }

  // A 2-thread AVX-512 EPYC device (`signature` and `clock_mhz` empty: not known).
  static measure::Device epyc_avx512(const std::string& signature = "", double clock_mhz = 0) {
    measure::Device device;
    device.cpu_model = "AMD EPYC";
    device.cpu_signature = signature;
    device.isa = "avx512";
    device.target = "x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41";
    device.threads = 2;
    device.peak_gflops = 250;
    device.clock_mhz = clock_mhz;
    return device;
  }

  std::filesystem::path dir_;
  std::unique_ptr<db::RecordStore> store_;
};

TEST_F(RecordSamples, ARecordWithNativeCostsGivesAChainedSampleToo) {
  ASSERT_LT(chained_column(), features::pooled_feature_names().size());

  measure::Device device;
  device.cpu_model = "AMD EPYC 7B13 64-Core Processor";
  device.isa = "avx2";
  device.target = "x86-64-linux-avx-avx2-f16c-fma-sse41";
  device.threads = 2;
  device.peak_gflops = 100;
  DeviceTable devices;
  devices.add(device);

  const std::string conv = "conv2d|float32[1,16,14,14];float32[16,16,3,3]|dilations=[1,1];groups=1;pads=[1,1,1,1];"
                           "strides=[1,1]|relu";
  ASSERT_TRUE(ir::parse_workload_key(conv).ok()) << ir::parse_workload_key(conv).status().message();
  measure::Record chained = onednn_default(conv, device);
  chained.costs = {4e-4, 5e-4, 6e-4};
  chained.native_costs = {1e-4, 2e-4, 3e-4};
  chained.timestamp = 1.7e9;
  measure::Record plain = chained;  // another config, measured before native costs were
  plain.config["format"] = "plain";
  plain.native_costs.clear();
  ASSERT_TRUE(db::add_record(*store_, chained).ok());
  ASSERT_TRUE(db::add_record(*store_, plain).ok());

  auto set = samples_from_store(*store_, devices, {});
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->skipped, 0u);
  ASSERT_EQ(set->samples.size(), 3u);
  int chained_samples = 0;
  for (const Sample& s : set->samples) {
    const bool is_chained = s.program[chained_column()] == 1.0f;
    chained_samples += is_chained;
    EXPECT_DOUBLE_EQ(s.seconds, is_chained ? 2e-4 : 5e-4);
    EXPECT_EQ(s.provider, "onednn");
  }
  EXPECT_EQ(chained_samples, 1);
  EXPECT_TRUE(set->off_clock.empty()) << "records that keep no clock are not counted";
}

// One device key covers hosts of one CPU model at different clocks: records measured at a clock
// other than their description's are counted, per device and clock, and their seconds brought to
// the described clock (unless asked not to).
TEST_F(RecordSamples, RecordsMeasuredAtAnotherClockThanTheDescriptionsAreCounted) {
  const measure::Device device = epyc_avx512("f26m2", 2096);
  DeviceTable devices;
  devices.add(device);
  const std::string dense = "dense|float32[1,64];float32[32,64]||bias";
  ASSERT_TRUE(ir::parse_workload_key(dense).ok());
  int config = 0;
  for (double clock : {2096.0, 2100.0, 2596.1, 2595.9, 0.0}) {  // within 1%, within 1%, off, off, not kept
    measure::Record r = onednn_default(dense, device);
    r.costs = {1e-5};
    r.timestamp = 1.7e9 + config++;  // distinct lines (a store keeps each line once)
    r.clock_mhz = clock;
    ASSERT_TRUE(db::add_record(*store_, r).ok());
  }
  auto set = samples_from_store(*store_, devices, {});
  ASSERT_TRUE(set.ok()) << set.status().message();
  ASSERT_EQ(set->off_clock.size(), 1u);
  ASSERT_EQ(set->off_clock.count(device.key()), 1u);
  EXPECT_EQ(set->off_clock.at(device.key()).records, (std::map<long, size_t>{{2596, 2}}));
  EXPECT_EQ(set->off_clock.at(device.key()).described_by, device.key());
  EXPECT_EQ(set->off_clock.at(device.key()).described_mhz, 2096);
  EXPECT_TRUE(set->off_clock.at(device.key()).scaled);
  // 1e-5 s at 2096, 2100 and no clock; 1e-5 x 2596.1 / 2096 and x 2595.9 / 2096.
  ASSERT_EQ(set->samples.size(), 5u);
  std::vector<double> got;
  for (const Sample& s : set->samples) got.push_back(s.seconds);
  std::sort(got.begin(), got.end());
  EXPECT_DOUBLE_EQ(got[0], 1e-5);
  EXPECT_DOUBLE_EQ(got[2], 1e-5);
  EXPECT_DOUBLE_EQ(got[3], 1e-5 * 2595.9 / 2096);
  EXPECT_DOUBLE_EQ(got[4], 1e-5 * 2596.1 / 2096);

  SampleSetOptions as_measured;
  as_measured.clock_normalise = false;
  auto raw = samples_from_store(*store_, devices, as_measured);
  ASSERT_TRUE(raw.ok());
  EXPECT_FALSE(raw->off_clock.at(device.key()).scaled);
  for (const Sample& s : raw->samples) EXPECT_DOUBLE_EQ(s.seconds, 1e-5);
}

TEST_F(RecordSamples, AProgramMeasuredAgainInALaterSessionKeepsOnlyThatSessionsRecords) {
  const measure::Device device = epyc_avx512();
  DeviceTable devices;
  devices.add(device);
  const std::string dense = "dense|float32[1,64];float32[32,64]||bias";
  const double day = 86400;
  // Program A: two records of a first session, two of a session three days later (the second of
  // them an hour after the first: a repeat within the session). Program B: one session only.
  measure::Record a = onednn_default(dense, device);
  for (auto [t, cost] : {std::pair{1.7e9, 2e-5}, {1.7e9 + 60, 2.2e-5}, {1.7e9 + 3 * day, 1e-5}, {1.7e9 + 3 * day + 3600, 1.1e-5}}) {
    a.timestamp = t;
    a.costs = {cost};
    ASSERT_TRUE(db::add_record(*store_, a).ok());
  }
  measure::Record b = onednn_default(dense, device);
  b.config["format"] = "plain";
  b.timestamp = 1.7e9;
  b.costs = {3e-5};
  ASSERT_TRUE(db::add_record(*store_, b).ok());

  auto set = samples_from_store(*store_, devices, {});
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->superseded, 2u);
  std::vector<double> got;
  for (const Sample& s : set->samples) got.push_back(s.seconds);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<double>{1e-5, 1.1e-5, 3e-5}));

  SampleSetOptions every_session;
  every_session.newest_session_hours = 0;
  auto all = samples_from_store(*store_, devices, every_session);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->superseded, 0u);
  EXPECT_EQ(all->samples.size(), 5u);
}

}  // namespace
}  // namespace tensorperf::costmodel
