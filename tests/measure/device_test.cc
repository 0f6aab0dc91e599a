#include "measure/device.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

namespace tensorperf::measure {
namespace {

namespace fs = std::filesystem;

class DeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tp-device-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  DeviceOptions options(int threads = 1, std::string isa = "native") {
    DeviceOptions o;
    o.threads = threads;
    o.isa = std::move(isa);
    o.cache_dir = dir_.string();
    return o;
  }
  fs::path dir_;
};

TEST_F(DeviceTest, IdentityIsFilledAndPeaksArePositive) {
  auto d = detect_device(options());
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_FALSE(d->cpu_model.empty());
  EXPECT_GE(d->cores, 1);
  EXPECT_EQ(d->threads, 1);
  EXPECT_NE(d->target.find("x86-64-linux"), std::string::npos);
  EXPECT_NE(d->target.find("sse41"), std::string::npos);
  EXPECT_GT(d->peak_gflops, 0);
  EXPECT_GT(d->mem_bandwidth_gbs, 0);
  EXPECT_GT(d->l1d_bytes, 0);
  EXPECT_EQ(d->features().size(), device_feature_names().size());
}

TEST_F(DeviceTest, KeyIsStableAndNamesIsaAndThreads) {
  auto a = detect_device(options());
  auto b = detect_device(options());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->key(), b->key());
  EXPECT_EQ(a->key().rfind("x86_64-", 0), 0u) << a->key();
  EXPECT_EQ(a->key().substr(a->key().size() - 3), "-t1");
  // Measured numbers do not enter the key.
  Device c = *a;
  c.peak_gflops *= 2;
  EXPECT_EQ(c.key(), a->key());
}

TEST_F(DeviceTest, MaskedModelNamesAreToldApartByTheCpuSignature) {
  Device zen4, zen5;
  zen4.cpu_model = zen5.cpu_model = "AMD EPYC";  // what cloud VMs show for several generations
  zen4.isa = zen5.isa = "avx512";
  zen4.threads = zen5.threads = 2;
  zen4.cpu_signature = "f25m17";
  zen5.cpu_signature = "f26m2";
  EXPECT_EQ(zen5.key(), "x86_64-amd-epyc-f26m2-avx512-t2");
  EXPECT_NE(zen4.key(), zen5.key());
  // A model number already names the CPU: the key stays as it was.
  Device named = zen5;
  named.cpu_model = "AMD EPYC 7B13 64-Core Processor";
  EXPECT_EQ(named.key(), "x86_64-amd-epyc-7b13-avx512-t2");
  // Descriptions written before the signature was kept keep their key.
  nlohmann::json old = device_to_json(zen5);
  old.erase("cpu_signature");
  auto read = device_from_json(old);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->key(), "x86_64-amd-epyc-avx512-t2");
  auto round_trip = device_from_json(device_to_json(zen5));
  ASSERT_TRUE(round_trip.ok());
  EXPECT_EQ(round_trip->key(), zen5.key());
}

// A description written before keys carried the signature is recognised as the host's CPU when the
// rest of its identity matches, and only then (a Zen 4 and a Zen 5 host show the same model name).
TEST_F(DeviceTest, AnOlderKeysDescriptionIsRecognisedAsTheSameCpu) {
  Device host;
  host.cpu_model = "AMD EPYC";
  host.cpu_signature = "f25m17";
  host.isa = "avx512";
  host.isa_features = {"sse41", "avx", "avx2", "fma", "avx512f"};
  host.cores = host.threads = 2;
  host.l1d_bytes = 32 << 10;
  host.l2_bytes = 1 << 20;
  host.l3_bytes = 32 << 20;
  host.peak_gflops = 233;
  Device older = host;
  older.cpu_signature.clear();
  older.isa_features = {"avx512f", "fma", "avx2", "avx", "sse41"};  // order is not identity
  older.peak_gflops = 231;                                          // nor are measured peaks
  ASSERT_EQ(older.key(), "x86_64-amd-epyc-avx512-t2");
  EXPECT_TRUE(same_cpu_under_older_key(older, host));
  EXPECT_FALSE(same_cpu_under_older_key(host, host)) << "a signed description is not an older key";
  EXPECT_FALSE(same_cpu_under_older_key(older, older)) << "a host without a signature has no older key";
  Device zen5 = older;
  zen5.l1d_bytes = 48 << 10;
  EXPECT_FALSE(same_cpu_under_older_key(zen5, host)) << "another L1d: another CPU";
  Device one_thread = older;
  one_thread.threads = 1;
  EXPECT_FALSE(same_cpu_under_older_key(one_thread, host));
  Device avx2 = older;
  avx2.isa = "avx2";
  EXPECT_FALSE(same_cpu_under_older_key(avx2, host));
  Device fewer = older;
  fewer.isa_features.pop_back();
  EXPECT_FALSE(same_cpu_under_older_key(fewer, host));
}

TEST_F(DeviceTest, ThreadCountsAndIsaLevelsAreDifferentDevices) {
  auto native = detect_device(options(1));
  auto sse = detect_device(options(1, "sse41"));
  ASSERT_TRUE(native.ok() && sse.ok());
  EXPECT_EQ(sse->target, "x86-64-linux-sse41");
  if (native->isa != "sse41") {
    EXPECT_NE(native->key(), sse->key());
    // Wider vectors reach a higher peak.
    EXPECT_GT(native->peak_gflops, sse->peak_gflops);
  }
  if (native->cores >= 2) {
    auto two = detect_device(options(2));
    ASSERT_TRUE(two.ok());
    EXPECT_NE(two->key(), native->key());
    EXPECT_EQ(two->key().substr(two->key().size() - 3), "-t2");
  }
}

TEST_F(DeviceTest, MeasuredPeaksComeFromTheCache) {
  auto first = detect_device(options());
  ASSERT_TRUE(first.ok());
  fs::path file = dir_ / ("device-" + first->key() + ".json");
  ASSERT_TRUE(fs::exists(file));
  Device edited = *first;
  edited.peak_gflops = 12345;
  std::ofstream(file) << device_to_json(edited).dump();
  auto second = detect_device(options());
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->peak_gflops, 12345);
  DeviceOptions again = options();
  again.remeasure = true;
  auto third = detect_device(again);
  ASSERT_TRUE(third.ok());
  EXPECT_NE(third->peak_gflops, 12345);
}

// A process that takes turns with the probe on its CPU does not halve the measured peak: the probe
// counts the CPU time its threads ran, not the wall time (a probe during a build cached half of
// this CPU's peak and a fifth of its bandwidth).
TEST_F(DeviceTest, PeaksHoldWhileAnotherThreadSharesTheCpu) {
  DeviceOptions alone = options();
  alone.remeasure = true;
  auto quiet = detect_device(alone);
  ASSERT_TRUE(quiet.ok()) << quiet.status().message();
  std::atomic<bool> stop{false};
  std::thread spinner([&] {
    ASSERT_TRUE(pin_current_thread({pinned_cpus(1)[0]}).ok());
    volatile uint64_t n = 0;
    while (!stop.load(std::memory_order_relaxed)) n = n + 1;
  });
  auto shared = detect_device(alone);
  stop = true;
  spinner.join();
  ASSERT_TRUE(shared.ok()) << shared.status().message();
  EXPECT_GT(shared->peak_gflops, 0.8 * quiet->peak_gflops) << quiet->peak_gflops;
}

TEST_F(DeviceTest, RejectsImpossibleThreadCountsAndUnknownIsa) {
  auto zero = detect_device(options(0));
  EXPECT_EQ(zero.status().code(), StatusCode::kInvalidArgument);
  auto many = detect_device(options(100000));
  EXPECT_EQ(many.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(many.status().message().find("--threads"), std::string::npos);
  auto isa = detect_device(options(1, "neon"));
  EXPECT_EQ(isa.status().code(), StatusCode::kInvalidArgument);
}

TEST_F(DeviceTest, JsonRoundTrip) {
  auto d = detect_device(options());
  ASSERT_TRUE(d.ok());
  auto back = device_from_json(device_to_json(*d));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(device_to_json(*back), device_to_json(*d));
  EXPECT_FALSE(device_from_json(nlohmann::json{{"arch", "x86_64"}}).ok());
}

TEST(PinnedCpus, ReturnsDistinctCpusUpToTheCount) {
  auto one = pinned_cpus(1);
  ASSERT_EQ(one.size(), 1u);
  auto all = pinned_cpus(1 << 20);
  EXPECT_GE(all.size(), 1u);
  EXPECT_EQ(all[0], one[0]);
  EXPECT_TRUE(pin_current_thread(one).ok());
}

}  // namespace
}  // namespace tensorperf::measure
