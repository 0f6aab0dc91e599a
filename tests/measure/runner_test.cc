#include "measure/runner.h"

#include <chrono>
#include <filesystem>

#include <gtest/gtest.h>

#include "fake_provider.h"

namespace tensorperf::measure {
namespace {

using testing::fake_config;
using testing::FakeProvider;
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

}  // namespace
}  // namespace tensorperf::measure
