// Evaluation splits, k-means selection and device vectors for records.
#include "costmodel/splits.h"

#include <set>

#include <gtest/gtest.h>

#include "costmodel/device_table.h"
#include "features/program_features.h"

namespace tensorperf::costmodel {
namespace {

Sample at(float x, float y, std::string workload, std::string device) {
  Sample s;
  s.program.assign(features::pooled_feature_names().size(), 0.0f);
  s.program[0] = x;
  s.program[1] = y;
  s.seconds = 1e-3;
  s.workload = std::move(workload);
  s.device_key = std::move(device);
  return s;
}

TEST(Splits, KMeansPicksOneSamplePerCluster) {
  // Three tight clusters far apart, 10 samples each.
  std::vector<Sample> samples;
  const float centres[3][2] = {{0, 0}, {100, 0}, {0, 100}};
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < 10; ++i)
      samples.push_back(at(centres[c][0] + 0.1f * static_cast<float>(i % 3), centres[c][1] + 0.1f * static_cast<float>(i / 3),
                           "w", "d"));
  std::vector<size_t> rows(samples.size());
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = i;
  for (uint64_t seed : {1, 2, 3}) {
    std::vector<size_t> picked = kmeans_representatives(samples, rows, 3, seed);
    ASSERT_EQ(picked.size(), 3u);
    std::set<size_t> clusters;
    for (size_t p : picked) clusters.insert(p / 10);
    EXPECT_EQ(clusters.size(), 3u) << "seed " << seed;
  }
  EXPECT_EQ(kmeans_representatives(samples, rows, 100, 1).size(), 30u) << "k is capped by the rows";
}

TEST(Splits, CrossModelHoldsOutEveryWorkloadOfTheNetwork) {
  std::vector<Sample> samples = {at(0, 0, "a", "d"), at(0, 0, "shared", "d"), at(0, 0, "b", "d"), at(0, 0, "a", "e")};
  std::map<std::string, std::set<std::string>> nets = {{"net1", {"a", "shared"}}, {"net2", {"b", "shared"}}};
  auto splits = cross_model_splits(samples, nets);
  ASSERT_EQ(splits.size(), 2u);
  EXPECT_EQ(splits[0].name, "cross-model net1");
  EXPECT_EQ(splits[0].test, (std::vector<size_t>{0, 1, 3}));
  EXPECT_EQ(splits[0].train, (std::vector<size_t>{2}));
  EXPECT_EQ(splits[1].test, (std::vector<size_t>{1, 2}));
}

TEST(Splits, CrossDeviceFineTunesOnAShareOfTheHeldOutDevice) {
  std::vector<Sample> samples;
  for (int i = 0; i < 50; ++i) samples.push_back(at(static_cast<float>(i), 0, "w", "new"));
  for (int i = 0; i < 30; ++i) samples.push_back(at(static_cast<float>(i), 0, "w", "old"));
  for (Selection sel : {Selection::kKMeans, Selection::kRandom}) {
    Split s = cross_device_split(samples, "new", 0.1, sel, 7);
    EXPECT_EQ(s.test.size(), 45u);
    EXPECT_EQ(s.train.size(), 30u);
    EXPECT_EQ(s.fine_tune.size(), 5u);
    for (size_t i : s.train) EXPECT_EQ(samples[i].device_key, "old");
    for (size_t i : s.test) EXPECT_EQ(samples[i].device_key, "new");
    std::set<size_t> tuned(s.fine_tune.begin(), s.fine_tune.end());
    for (size_t i : s.fine_tune) EXPECT_EQ(samples[i].device_key, "new");
    for (size_t i : s.test) EXPECT_FALSE(tuned.count(i));
  }
  Split r = random_split(samples, 0.25, 3);
  EXPECT_EQ(r.test.size(), 20u);
  EXPECT_EQ(r.train.size(), 60u);
}

TEST(Splits, CrossCpuKeepsTheWholeCpuOutOfTraining) {
  // Two CPUs: "x86_64-amd-epyc" (two devices) and "x86_64-amd-epyc-f26m2" (three devices).
  const std::vector<std::string> keys = {"x86_64-amd-epyc-avx512-t2", "x86_64-amd-epyc-avx2-fma-t1",
                                         "x86_64-amd-epyc-f26m2-avx512-t2", "x86_64-amd-epyc-f26m2-avx512-t1",
                                         "x86_64-amd-epyc-f26m2-sse41-t2"};
  std::vector<Sample> samples;
  for (const std::string& key : keys)
    for (int i = 0; i < 20; ++i) samples.push_back(at(static_cast<float>(i), 0, "w", key));
  EXPECT_EQ(cpu_of_device("x86_64-amd-epyc-f26m2-sse41-t2"), "x86_64-amd-epyc-f26m2");
  EXPECT_EQ(cpu_of_device("x86_64-amd-epyc-avx2-fma-t1"), "x86_64-amd-epyc");
  Split c = cross_device_split(samples, "x86_64-amd-epyc-f26m2-avx512-t2", 0.1, Selection::kRandom, 1, HoldOut::kCpu);
  EXPECT_EQ(c.name, "cross-cpu x86_64-amd-epyc-f26m2-avx512-t2 10% random");
  EXPECT_EQ(c.train.size(), 40u);  // only the other CPU's two devices
  for (size_t i : c.train) EXPECT_EQ(cpu_of_device(samples[i].device_key), "x86_64-amd-epyc") << samples[i].device_key;
  EXPECT_EQ(c.fine_tune.size(), 2u);
  EXPECT_EQ(c.test.size(), 18u);
  for (size_t i : c.test) EXPECT_EQ(samples[i].device_key, "x86_64-amd-epyc-f26m2-avx512-t2");
  // Holding out the device alone trains on its CPU's other devices too.
  Split d = cross_device_split(samples, "x86_64-amd-epyc-f26m2-avx512-t2", 0.1, Selection::kRandom, 1);
  EXPECT_EQ(d.train.size(), 80u);
  EXPECT_EQ(d.test, c.test);
  // Every device of one CPU gets the same training set, so one pre-training serves them all.
  Split e = cross_device_split(samples, "x86_64-amd-epyc-f26m2-sse41-t2", 0.05, Selection::kKMeans, 1, HoldOut::kCpu);
  EXPECT_EQ(e.train, c.train);
}

TEST(DeviceTable, UnknownDevicesGetTheClosestDescribedOneFlagged) {
  DeviceTable table;
  EXPECT_EQ(table.vector_for("x86_64-amd-epyc-avx2-fma-t1").status().code(), StatusCode::kNotFound);
  measure::Device a;
  a.cpu_model = "AMD EPYC 7B13 64-Core Processor";
  a.isa = "avx2";
  a.threads = 2;
  a.peak_gflops = 100;
  measure::Device b = a;
  b.isa = "sse41";
  b.threads = 1;
  b.peak_gflops = 30;
  table.add(a);
  table.add(b);
  ASSERT_EQ(a.key(), "x86_64-amd-epyc-7b13-avx2-fma-t2");
  auto exact = table.vector_for(a.key());
  ASSERT_TRUE(exact.ok());
  EXPECT_TRUE(exact->exact);
  EXPECT_EQ(exact->features.size(), measure::device_feature_names().size());
  // The same CPU at AVX2 on one thread: the AVX2 description (same ISA level) is the closest.
  auto other = table.vector_for("x86_64-amd-epyc-7b13-avx2-fma-t1");
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->exact);
  EXPECT_EQ(other->described_by, a.key());
  // A host whose CPU a description holds under its older key (no signature) finds that description.
  measure::Device masked = a;
  masked.cpu_model = "AMD EPYC";
  table.add(masked);
  measure::Device host = masked;
  host.cpu_signature = "f25m17";
  const measure::Device* older = table.find_under_older_key(host);
  ASSERT_NE(older, nullptr);
  EXPECT_EQ(older->key(), "x86_64-amd-epyc-avx2-fma-t2");
  // One CPU, one vector: the host's own key, once described, still gets the older key's vector.
  EXPECT_EQ(table.find_for(host), older);
  measure::Device one_thread = host;
  one_thread.threads = 1;
  EXPECT_EQ(table.find_for(one_thread), nullptr);  // no description of it under either key
  measure::Device probed = host;
  probed.mem_bandwidth_gbs = 56;  // its own description, measured again: another bandwidth
  table.add(probed);
  ASSERT_EQ(probed.key(), "x86_64-amd-epyc-f25m17-avx2-fma-t2");
  EXPECT_EQ(table.find_for(probed), older);
  auto own = table.vector_for(probed.key());
  ASSERT_TRUE(own.ok());
  EXPECT_FALSE(own->exact);
  EXPECT_EQ(own->described_by, older->key());
  EXPECT_EQ(own->features, table.vector_for(older->key())->features);
  // Its records are that device's, measured again: a cross-device split holds out both keys as one.
  EXPECT_EQ(table.device_of(probed.key()), older->key());
  EXPECT_EQ(table.device_of(older->key()), older->key());
  EXPECT_EQ(table.device_of(a.key()), a.key());
  EXPECT_EQ(table.device_of("x86_64-amd-epyc-f25m17-sse41-t1"), "x86_64-amd-epyc-f25m17-sse41-t1");  // not described
  EXPECT_NE(own->features, [&] {
    std::vector<float> f;
    for (double x : probed.features()) f.push_back(static_cast<float>(x));
    return f;
  }());
  host.threads = 1;
  EXPECT_EQ(table.find_under_older_key(host), nullptr);
  DeviceKeyParts p = split_device_key("x86_64-intel-xeon-avx512-t16");
  EXPECT_EQ(p.arch, "x86_64");
  EXPECT_EQ(p.cpu, "intel-xeon");
  EXPECT_EQ(p.isa, "avx512");
  EXPECT_EQ(p.threads, 16);
}

}  // namespace
}  // namespace tensorperf::costmodel
