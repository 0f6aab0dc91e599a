// Halide's autoschedulers as baselines: each one schedules a workload whose output then matches the
// reference; unknown names are NotFound.
#include "kernels/autoschedule.h"

#include <gtest/gtest.h>

#include <random>

#include "test_workloads.h"

namespace tensorperf::kernels {
namespace {

void expect_matches_reference(const ir::Workload& w, const std::string& scheduler) {
  auto kernel = compile_autoscheduled(w, scheduler, CompileOptions{"host", 2});
  ASSERT_TRUE(kernel.ok()) << scheduler << " on " << w.key() << ": " << kernel.status().message();
  std::mt19937_64 rng(11);
  std::vector<HostTensor> inputs = testing::random_inputs(w, rng);
  HostTensor out(w.output), expected(w.output);
  ASSERT_TRUE(kernel.value()->run(testing::pointers(inputs), out).ok());
  ASSERT_TRUE(run_reference(w, testing::pointers(inputs), expected).ok());
  EXPECT_LE(max_scaled_error(out, expected), 1.0) << scheduler << " on " << w.key();
}

TEST(Autoschedule, EachSchedulerProducesACorrectConv) {
  ir::Workload conv = testing::coverage_workloads()[0];  // 3x3 conv with bias + relu
  for (const std::string& name : autoscheduler_names()) expect_matches_reference(conv, name);
}

TEST(Autoschedule, DenseAndPool) {
  auto all = testing::coverage_workloads();
  expect_matches_reference(all[6], "Mullapudi2016");   // dense
  expect_matches_reference(all[12], "Li2018");         // max_pool2d
}

TEST(Autoschedule, UnknownSchedulerIsNotFound) {
  auto k = compile_autoscheduled(testing::coverage_workloads()[0], "Ansor", CompileOptions{});
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace tensorperf::kernels
