#include "tune/task_scheduler.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace tensorperf::tune {
namespace {

// Two tasks whose latency falls as 1 / trials toward a floor; the first counts 8 times in the model
// and improves more per trial, so the scheduler should give it most of the budget.
TEST(TaskScheduler, GivesMoreTrialsToTheTaskWithTheLargerGain) {
  SchedulerOptions o;
  o.patience = 0;
  o.epsilon = 0;
  TaskScheduler s({{8.0, 1e9, "conv2d"}, {1.0, 1e9, "dense"}}, o);
  auto latency = [](size_t task, int64_t trials) {
    double floor = task == 0 ? 1e-3 : 1e-3;
    return floor + (task == 0 ? 4e-3 : 1e-3) / static_cast<double>(1 + trials);
  };
  for (int round = 0; round < 40; ++round) {
    auto t = s.next();
    ASSERT_TRUE(t.has_value());
    s.record(*t, 8, latency(*t, s.trials(*t) + 8));
  }
  EXPECT_GT(s.trials(0), 3 * s.trials(1)) << s.trials(0) << " vs " << s.trials(1);
  EXPECT_GE(s.trials(1), 8);  // the warm-up round
}

TEST(TaskScheduler, WarmsUpRoundRobinFirst) {
  TaskScheduler s({{1, 1, ""}, {1, 1, ""}, {1, 1, ""}}, {});
  for (size_t i = 0; i < 3; ++i) {
    auto t = s.next();
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(*t, i);
    s.record(i, 4, 1.0);
  }
}

TEST(TaskScheduler, StopsATaskThatDoesNotImproveAndEndsWhenAllStop) {
  SchedulerOptions o;
  o.patience = 16;
  TaskScheduler s({{1, 1, ""}, {1, 1, ""}}, o);
  for (int round = 0; round < 20; ++round) {
    auto t = s.next();
    if (!t) break;
    s.record(*t, 8, 1.0);  // never better than the first batch
  }
  EXPECT_TRUE(s.stopped(0));
  EXPECT_TRUE(s.stopped(1));
  EXPECT_FALSE(s.next().has_value());
  EXPECT_EQ(s.trials(0), 24);  // 8 (the best found), then 16 without improvement
}

TEST(TaskScheduler, RestoredHistoryCountsAndCanStopATask) {
  SchedulerOptions o;
  o.patience = 10;
  TaskScheduler s({{1, 1, ""}, {2, 1, ""}}, o);
  s.restore(0, 40, 2e-3, 30);  // no improvement for 30 trials: stopped
  s.restore(1, 5, 1e-3, 0);
  EXPECT_TRUE(s.stopped(0));
  EXPECT_EQ(s.total_trials(), 45);
  EXPECT_DOUBLE_EQ(s.objective(), 2e-3 + 2 * 1e-3);
  auto t = s.next();
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(*t, 1u);
}

TEST(TaskScheduler, ATaskWithoutAWorkingConfigComesFirst) {
  SchedulerOptions o;
  o.epsilon = 0;
  TaskScheduler s({{1, 1, ""}, {1, 1, ""}}, o);
  s.record(*s.next(), 4, 1e-3);
  s.record(*s.next(), 4, std::numeric_limits<double>::infinity());
  EXPECT_EQ(*s.next(), 1u);
}

}  // namespace
}  // namespace tensorperf::tune
