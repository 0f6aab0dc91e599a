#include "measure/profiler.h"

#include <unistd.h>

#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "fake_provider.h"

namespace tensorperf::measure {
namespace {

namespace fs = std::filesystem;
using testing::FakeProvider;
using testing::relu_workload;

class MemorySink : public RecordSink {
 public:
  Status write(const Record& r) override {
    records.push_back(r);
    return Status::Ok();
  }
  std::vector<Record> records;
};

class ProfilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DeviceOptions o;
    o.cache_dir = (fs::temp_directory_path() / "tp-profiler-test").string();
    auto d = detect_device(o);
    ASSERT_TRUE(d.ok()) << d.status().message();
    device_ = *d;
    ir::Task a, b, unsupported;
    a.workload = relu_workload(4);
    a.count = 2;
    b.workload = relu_workload(8);
    b.count = 1;
    unsupported.workload = relu_workload(4);
    unsupported.workload.op = ir::OpKind::kSigmoid;
    unsupported.count = 1;
    tasks_ = {a, b, unsupported};
    options_.configs_per_task = 4;
    options_.measure.timing.min_repeat_ms = 2;
    options_.measure.timing.repeat = 2;
  }
  Device device_;
  std::vector<ir::Task> tasks_;
  ProfileOptions options_;
  FakeProvider provider_;
};

TEST_F(ProfilerTest, MeasuresEverySupportedTaskWithTheDefaultFirst) {
  MemorySink sink;
  MeasuredIndex index;
  std::vector<ProfileProgress> seen;
  auto rep = profile(tasks_, {&provider_}, device_, options_, index, sink,
                     [&](const ProfileProgress& p) { seen.push_back(p); });
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  ASSERT_EQ(sink.records.size(), 8u);
  EXPECT_EQ(rep->measured, 8);
  EXPECT_EQ(rep->skipped, 0);
  EXPECT_EQ(rep->errors, 0);
  ASSERT_EQ(rep->unsupported.size(), 1u);
  EXPECT_NE(rep->unsupported[0].find("sigmoid"), std::string::npos);
  EXPECT_EQ(sink.records[0].config, provider_.default_config(relu_workload()).knobs);
  std::set<std::string> configs;
  for (int i = 0; i < 4; ++i) configs.insert(sink.records[i].config.dump());
  EXPECT_EQ(configs.size(), 4u);
  ASSERT_EQ(rep->tasks.size(), 2u);
  const TaskSummary& s = rep->tasks[0];
  EXPECT_EQ(s.count, 2);
  EXPECT_EQ(s.configs, 4);
  EXPECT_EQ(s.measured, 4);
  EXPECT_GT(s.best_s, 0);
  EXPECT_LE(s.best_s, s.median_s);
  EXPECT_LE(s.median_s, s.worst_s);
  EXPECT_GT(s.best_gflops(), 0);
  EXPECT_GT(rep->build_s, 0);
  EXPECT_GT(rep->run_s, 0);
  EXPECT_GT(rep->configs_per_s(), 0);
  // Progress: a start and one call per config for each task; totals known from the start.
  ASSERT_EQ(seen.size(), 2u + 8u);
  EXPECT_EQ(seen.front().configs_total, 8);
  EXPECT_EQ(seen.back().configs_done, 8);
  EXPECT_EQ(seen.back().task_index, 1);
}

TEST_F(ProfilerTest, SecondRunMeasuresNothingNew) {
  std::string path = (fs::temp_directory_path() / ("tp-profile-" + std::to_string(::getpid()) + ".jsonl")).string();
  fs::remove(path);
  {
    auto sink = JsonLinesSink::open(path);
    ASSERT_TRUE(sink.ok());
    MeasuredIndex index;
    auto first = profile(tasks_, {&provider_}, device_, options_, index, **sink);
    ASSERT_TRUE(first.ok());
    EXPECT_EQ(first->measured, 8);
  }
  auto file = read_record_file(path);
  ASSERT_TRUE(file.ok());
  ASSERT_EQ(file->records.size(), 8u);
  MeasuredIndex index;
  for (const auto& r : file->records) index.add(r);
  MemorySink sink;
  auto second = profile(tasks_, {&provider_}, device_, options_, index, sink);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->measured, 0);
  EXPECT_EQ(second->skipped, 8);
  EXPECT_TRUE(sink.records.empty());
  // The summary still covers the recorded configs.
  EXPECT_GT(second->tasks[0].best_s, 0);
  // More configs per task: only the new ones are measured.
  options_.configs_per_task = 6;
  auto third = profile(tasks_, {&provider_}, device_, options_, index, sink);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->measured, 4);
  EXPECT_EQ(third->skipped, 8);
  fs::remove(path);
}

TEST_F(ProfilerTest, OnlyConfigsMeasuresExactlyThoseOfEachNamedWorkload) {
  // A run chose a non-default config for one workload and nothing for the other: that config is
  // measured alone, neither the default nor a sample, and the other tasks are left out.
  kernels::Config chosen = testing::fake_config("ok");
  chosen.knobs["tile"] = 4;
  kernels::Config other_provider = chosen;
  other_provider.provider = "halide";
  options_.only_configs[tasks_[1].workload.key()] = {chosen, other_provider};
  MemorySink sink;
  MeasuredIndex index;
  auto rep = profile(tasks_, {&provider_}, device_, options_, index, sink);
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  ASSERT_EQ(sink.records.size(), 1u);
  EXPECT_EQ(sink.records[0].workload_key, tasks_[1].workload.key());
  EXPECT_EQ(sink.records[0].provider, "fake");
  EXPECT_EQ(sink.records[0].config, chosen.knobs);
  ASSERT_EQ(rep->tasks.size(), 1u);
  EXPECT_EQ(rep->tasks[0].configs, 1);
  EXPECT_TRUE(rep->unsupported.empty());
  // Measured once: a second profile with the same choice skips it.
  auto again = profile(tasks_, {&provider_}, device_, options_, index, sink);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->measured, 0);
  EXPECT_EQ(again->skipped, 1);
}

TEST_F(ProfilerTest, GridSamplerAndADifferentDeviceMeasureAgain) {
  MemorySink sink;
  MeasuredIndex index;
  options_.sampler = SamplerKind::kGrid;
  tasks_.resize(1);
  ASSERT_TRUE(profile(tasks_, {&provider_}, device_, options_, index, sink).ok());
  EXPECT_EQ(sink.records.size(), 4u);
  Device other = device_;
  other.threads = device_.threads + 1;  // another device key; pinning takes what exists
  auto rep = profile(tasks_, {&provider_}, other, options_, index, sink);
  ASSERT_TRUE(rep.ok());
  EXPECT_EQ(rep->measured, 4);
  EXPECT_EQ(sink.records.back().device_key, other.key());
}

}  // namespace
}  // namespace tensorperf::measure
