#include "measure/runner.h"

#include <chrono>
#include <filesystem>
#include <optional>

#include <gtest/gtest.h>

#include "fake_provider.h"
#include "test_workloads.h"

namespace tensorperf::measure {
namespace {

using testing::fake_config;
using testing::FakeProvider;
using testing::fake_shared;
using testing::reset_fake_shared;
using testing::relu_workload;

class RunnerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    DeviceOptions o;
    o.cache_dir = (std::filesystem::temp_directory_path() / "tp-runner-test").string();
    auto d = detect_device(o);
    ASSERT_TRUE(d.ok()) << d.status().message();
    device_ = new Device(*d);
  }
  static void TearDownTestSuite() { delete device_; }

  MeasureOptions options() {
    MeasureOptions o;
    o.timing.min_repeat_ms = 5;
    o.timing.repeat = 3;
    o.build_timeout_s = 2;
    o.run_timeout_s = 2;
    return o;
  }
  Record measure(const std::string& behavior, MeasureOptions o) {
    auto runner = WorkloadRunner::create(relu_workload(), *device_, o);
    EXPECT_TRUE(runner.ok()) << runner.status().message();
    return (*runner)->measure(provider_, fake_config(behavior));
  }
  Record measure(const std::string& behavior) { return measure(behavior, options()); }

  static Device* device_;
  FakeProvider provider_;
};
Device* RunnerTest::device_ = nullptr;

TEST_F(RunnerTest, CorrectKernelGivesRepeatCostsAndIdentity) {
  Record r = measure("sleep_1ms");
  EXPECT_EQ(r.error, ErrorCode::kNoError) << r.error_msg;
  ASSERT_EQ(r.costs.size(), 3u);
  for (double c : r.costs) EXPECT_GE(c, 1e-3);
  EXPECT_EQ(r.workload_key, relu_workload().key());
  EXPECT_EQ(r.device_key, device_->key());
  EXPECT_EQ(r.target, device_->target);
  EXPECT_EQ(r.provider, "fake");
  EXPECT_EQ(r.config["behavior"], "sleep_1ms");
  EXPECT_GT(r.build_time_s, 0);
  EXPECT_GE(r.run_time_s, 3 * 5e-3);  // three timings of at least min_repeat_ms
  EXPECT_GT(r.timestamp, 1.6e9);
  EXPECT_EQ(r.clock_mhz, device_->clock_mhz);  // which host of the device's key measured it
}

TEST_F(RunnerTest, KernelsWithANativeLayoutAreTimedAsAChainRunsThemToo) {
  Record plain_only = measure("sleep_1ms");
  EXPECT_EQ(plain_only.error, ErrorCode::kNoError) << plain_only.error_msg;
  EXPECT_TRUE(plain_only.native_costs.empty());

  // The fake "blocked" kernel takes 4 ms with plain tensors and 1 ms with native ones.
  Record blocked = measure("blocked");
  ASSERT_EQ(blocked.error, ErrorCode::kNoError) << blocked.error_msg;
  ASSERT_EQ(blocked.costs.size(), 3u);
  ASSERT_EQ(blocked.native_costs.size(), 3u);
  for (double c : blocked.costs) EXPECT_GE(c, 4e-3);
  for (double c : blocked.native_costs) EXPECT_GE(c, 1e-3);
  EXPECT_LT(blocked.median_native_cost(), blocked.median_cost());
}

TEST_F(RunnerTest, OnednnRecordsCarryNativeCostsAndHalideRecordsNone) {
  const ir::Attrs attrs{{"strides", std::vector<int64_t>{1, 1}},
                        {"pads", std::vector<int64_t>{1, 1, 1, 1}},
                        {"dilations", std::vector<int64_t>{1, 1}},
                        {"groups", int64_t{1}}};
  const ir::Workload conv =
      kernels::testing::make_workload(ir::OpKind::kConv2d, {{1, 16, 14, 14}, {16, 16, 3, 3}}, attrs, {"relu"});
  MeasureOptions o = options();
  o.build_timeout_s = 120;  // a Halide JIT compile
  o.run_timeout_s = 60;
  auto runner = WorkloadRunner::create(conv, *device_, o);
  ASSERT_TRUE(runner.ok()) << runner.status().message();
  for (const char* name : {"onednn", "halide"}) {
    const kernels::Provider& p = *kernels::find_provider(name).value();
    Record r = (*runner)->measure(p, p.default_config(conv));
    ASSERT_EQ(r.error, ErrorCode::kNoError) << name << ": " << r.error_msg;
    EXPECT_EQ(r.costs.size(), 3u) << name;
    if (std::string(name) == "onednn") {
      ASSERT_EQ(r.native_costs.size(), 3u);
      for (double c : r.native_costs) EXPECT_GT(c, 0);
    } else {
      EXPECT_TRUE(r.native_costs.empty());
    }
  }
}

TEST_F(RunnerTest, BadKnobIsInstantiationError) {
  Record r = measure("bad_knob");
  EXPECT_EQ(r.error, ErrorCode::kInstantiationError);
  EXPECT_NE(r.error_msg.find("tile 3"), std::string::npos);
  EXPECT_TRUE(r.costs.empty());
}

TEST_F(RunnerTest, CompileFailureAndCompilerCrashAreCompileErrors) {
  Record failed = measure("compile_error");
  EXPECT_EQ(failed.error, ErrorCode::kCompileHostError);
  EXPECT_NE(failed.error_msg.find("lowering failed"), std::string::npos);
  Record crashed = measure("compile_abort");
  EXPECT_EQ(crashed.error, ErrorCode::kCompileHostError);
  EXPECT_NE(crashed.error_msg.find("while compiling"), std::string::npos) << crashed.error_msg;
}

TEST_F(RunnerTest, CrashesAndRunFailuresAreRuntimeErrors) {
  for (const char* b : {"crash", "out_of_bounds", "run_error", "throw"}) {
    Record r = measure(b);
    EXPECT_EQ(r.error, ErrorCode::kRuntimeDeviceError) << b << ": " << r.error_msg;
    EXPECT_FALSE(r.error_msg.empty());
  }
  // The caller is alive and measures on.
  EXPECT_EQ(measure("ok").error, ErrorCode::kNoError);
}

TEST_F(RunnerTest, WrongOutputIsWrongAnswer) {
  Record r = measure("wrong");
  EXPECT_EQ(r.error, ErrorCode::kWrongAnswerError);
  EXPECT_NE(r.error_msg.find("reference"), std::string::npos);
  MeasureOptions unchecked = options();
  unchecked.check_output = false;
  EXPECT_EQ(measure("wrong", unchecked).error, ErrorCode::kNoError);
}

TEST_F(RunnerTest, HangsBecomeTimeoutsWithinTheLimit) {
  MeasureOptions o = options();
  o.build_timeout_s = 1;
  o.run_timeout_s = 1;
  auto start = std::chrono::steady_clock::now();
  Record run = measure("hang", o);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(run.error, ErrorCode::kRunTimeoutError) << run.error_msg;
  EXPECT_LT(secs, 3.0);
  Record build = measure("compile_hang", o);
  EXPECT_EQ(build.error, ErrorCode::kBuildTimeoutError) << build.error_msg;
}

// measure_batch: every candidate's record, with the error measure() would give it.
TEST_F(RunnerTest, BatchGivesEachCandidateTheRecordMeasureWould) {
  MeasureOptions o = options();
  o.build_timeout_s = 1;
  o.run_timeout_s = 1;
  o.build_jobs = 2;
  auto runner = WorkloadRunner::create(relu_workload(), *device_, o);
  ASSERT_TRUE(runner.ok()) << runner.status().message();
  const std::vector<std::pair<std::string, ErrorCode>> cases = {
      {"ok", ErrorCode::kNoError},
      {"bad_knob", ErrorCode::kInstantiationError},
      {"sleep_1ms", ErrorCode::kNoError},
      {"compile_error", ErrorCode::kCompileHostError},
      {"compile_abort", ErrorCode::kCompileHostError},
      {"crash", ErrorCode::kRuntimeDeviceError},
      {"out_of_bounds", ErrorCode::kRuntimeDeviceError},
      {"run_error", ErrorCode::kRuntimeDeviceError},
      {"wrong", ErrorCode::kWrongAnswerError},
      {"hang", ErrorCode::kRunTimeoutError},
      {"compile_hang", ErrorCode::kBuildTimeoutError},
      {"ok", ErrorCode::kNoError},
  };
  std::vector<Candidate> batch;
  for (const auto& [b, e] : cases) batch.push_back({&provider_, fake_config(b)});
  std::vector<std::optional<Record>> got(batch.size());
  Status s = (*runner)->measure_batch(batch, [&](size_t i, Record r) {
    EXPECT_FALSE(got[i].has_value()) << "candidate " << i << " reported twice";
    got[i] = std::move(r);
    return Status::Ok();
  });
  ASSERT_TRUE(s.ok()) << s.message();
  for (size_t i = 0; i < cases.size(); ++i) {
    ASSERT_TRUE(got[i].has_value()) << cases[i].first;
    EXPECT_EQ(got[i]->error, cases[i].second) << cases[i].first << ": " << got[i]->error_msg;
    EXPECT_EQ(got[i]->config["behavior"], cases[i].first);
    EXPECT_EQ(got[i]->device_key, device_->key());
    if (cases[i].second == ErrorCode::kNoError) {
      EXPECT_EQ(got[i]->costs.size(), 3u);
    }
  }
}

// With spare CPUs (timing on one) and without (timing on all, compiles paused while timing).
TEST_F(RunnerTest, BatchNeverTimesTwoCandidatesAtOnce) {
  for (int threads : {1, static_cast<int>(pinned_cpus(1 << 16).size())}) {
    Device d = *device_;
    d.threads = threads;
    EXPECT_EQ(plan_cpus(threads).exclusive, threads == static_cast<int>(pinned_cpus(1 << 16).size()));
    MeasureOptions o = options();
    o.build_jobs = 3;
    auto runner = WorkloadRunner::create(relu_workload(), d, o);
    ASSERT_TRUE(runner.ok());
    std::vector<Candidate> batch(8, Candidate{&provider_, fake_config("exclusive")});
    int ok = 0;
    ASSERT_TRUE((*runner)
                    ->measure_batch(batch,
                                    [&](size_t, Record r) {
                                      EXPECT_EQ(r.error, ErrorCode::kNoError) << r.error_msg;
                                      ok += r.ok();
                                      return Status::Ok();
                                    })
                    .ok());
    EXPECT_EQ(ok, 8) << threads << " timing threads";
  }
}

TEST_F(RunnerTest, BatchCompilesAsManyAheadAsBuildJobs) {
  for (int jobs : {1, 3}) {
    reset_fake_shared();
    MeasureOptions o = options();
    o.build_jobs = jobs;
    auto runner = WorkloadRunner::create(relu_workload(), *device_, o);
    ASSERT_TRUE(runner.ok());
    std::vector<Candidate> batch(6, Candidate{&provider_, fake_config("compile_slow")});
    ASSERT_TRUE((*runner)->measure_batch(batch, [](size_t, Record r) {
      EXPECT_TRUE(r.ok()) << r.error_msg;
      return Status::Ok();
    }).ok());
    EXPECT_EQ(fake_shared().max_compiling, jobs);
  }
}

// One compile serves several thread counts: each candidate is timed on the runner's device and on
// every also_on device, each timing pinned to its own thread count, each a record of its device.
TEST_F(RunnerTest, BatchTimesEachCompileOnTheAlsoDevicesToo) {
  const int cpus = static_cast<int>(pinned_cpus(1 << 16).size());
  if (cpus < 2) GTEST_SKIP() << "needs 2 CPUs";
  Device two = *device_;
  two.threads = 2;
  Device one = *device_;
  one.threads = 1;
  ASSERT_NE(one.key(), two.key());
  for (const std::string behavior : {"pinned", "pinned_in_code"}) {
    reset_fake_shared();
    MeasureOptions o = options();
    o.build_jobs = 2;
    o.also_on = {one};
    auto runner = WorkloadRunner::create(relu_workload(), two, o);
    ASSERT_TRUE(runner.ok()) << runner.status().message();
    std::vector<Candidate> batch = {{&provider_, fake_config(behavior)},
                                    {&provider_, fake_config("wrong")},
                                    {&provider_, fake_config("bad_knob")},
                                    {&provider_, fake_config(behavior)}};
    std::vector<std::optional<Record>> main(batch.size()), also(batch.size());
    Status s = (*runner)->measure_batch(
        batch,
        [&](size_t i, Record r) {
          main[i] = std::move(r);
          return Status::Ok();
        },
        [&](size_t i, size_t j, Record r) {
          EXPECT_EQ(j, 0u);
          EXPECT_TRUE(main[i].has_value()) << "the also record came before the main one";
          EXPECT_FALSE(also[i].has_value()) << "candidate " << i << " reported twice";
          also[i] = std::move(r);
          return Status::Ok();
        });
    ASSERT_TRUE(s.ok()) << s.message();
    for (size_t i : {size_t{0}, size_t{3}}) {
      ASSERT_TRUE(main[i] && also[i]) << behavior;
      EXPECT_TRUE(main[i]->ok()) << behavior << ": " << main[i]->error_msg;
      EXPECT_TRUE(also[i]->ok()) << behavior << ": " << also[i]->error_msg;
      EXPECT_EQ(main[i]->device_key, two.key());
      EXPECT_EQ(also[i]->device_key, one.key());
      EXPECT_EQ(also[i]->costs.size(), 3u);
      EXPECT_EQ(also[i]->config, main[i]->config);
    }
    // A wrong kernel is wrong on either device; a config that does not compile is timed nowhere.
    ASSERT_TRUE(main[1] && also[1]);
    EXPECT_EQ(main[1]->error, ErrorCode::kWrongAnswerError);
    EXPECT_EQ(also[1]->error, ErrorCode::kWrongAnswerError);
    ASSERT_TRUE(main[2].has_value());
    EXPECT_EQ(main[2]->error, ErrorCode::kInstantiationError);
    EXPECT_FALSE(also[2].has_value());
    // Three candidates compile; a kernel with its thread count in the code compiles again for the
    // 1-thread device (the two pinned_in_code ones; "wrong" gives an instance).
    EXPECT_EQ(fake_shared().compiles, behavior == "pinned" ? 3 : 5) << behavior;
  }
}

TEST_F(RunnerTest, BatchRefusesAlsoDevicesItCannotServe) {
  Device one = *device_;
  one.threads = 1;
  Device more = one;
  more.threads = 2;
  Device other_isa = one;
  other_isa.target = device_->target + "-another";
  for (const Device& d : {more, other_isa}) {
    MeasureOptions o = options();
    o.also_on = {d};
    auto runner = WorkloadRunner::create(relu_workload(), one, o);
    ASSERT_TRUE(runner.ok());
    Status s = (*runner)->measure_batch({{&provider_, fake_config("ok")}}, [](size_t, Record) { return Status::Ok(); });
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << d.key();
  }
}

TEST_F(RunnerTest, BatchStopsAtTheFirstFailingCallback) {
  auto runner = WorkloadRunner::create(relu_workload(), *device_, options());
  ASSERT_TRUE(runner.ok());
  std::vector<Candidate> batch(5, Candidate{&provider_, fake_config("ok")});
  int calls = 0;
  Status s = (*runner)->measure_batch(batch, [&](size_t, Record) {
    ++calls;
    return Status::IoError("disk full");
  });
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace tensorperf::measure
