// The stage runtime's thread team: every group runs, failures come back in task order, and a group
// of several threads gets a nested team of that many threads (not a serial region inside the stage's
// team, which ran a group of 8 threads on one).
#include "runtime/group_pool.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>

namespace tensorperf::runtime {
namespace {

TEST(GroupPool, RunsEveryGroupAndReportsTheFirstFailure) {
  GroupPool pool(2);
  std::atomic<int> ran{0};
  std::vector<std::function<Status()>> tasks(3, [&] {
    ++ran;
    return Status::Ok();
  });
  ASSERT_TRUE(pool.run(tasks).ok());
  EXPECT_EQ(ran.load(), 3);
  tasks[1] = [] { return Status::InvalidArgument("second"); };
  tasks[2] = [] { return Status::Internal("third"); };
  Status st = pool.run(tasks);
  EXPECT_EQ(st.message(), "second");
  tasks.emplace_back([] { return Status::Ok(); });
  EXPECT_FALSE(pool.run(tasks).ok()) << "4 groups on a pool of 3 threads";
}

TEST(GroupPool, AGroupOfSeveralThreadsGetsANestedTeamOfThatSize) {
  GroupPool pool(1);
  std::vector<int> team(2, 0);
  std::vector<std::function<Status()>> tasks;
  for (int k = 0; k < 2; ++k)
    tasks.emplace_back([&team, k] {
      const int want = k + 2;  // groups of 2 and 3 threads
      omp_set_num_threads(want);  // what a kernel of `want` threads does (oneDNN; Halide's handler asks the same)
#pragma omp parallel
      {
#pragma omp single
        team[k] = omp_get_num_threads();
      }
      return Status::Ok();
    });
  ASSERT_TRUE(pool.run(tasks).ok());
  EXPECT_EQ(team[0], 2);
  EXPECT_EQ(team[1], 3);
}

}  // namespace
}  // namespace tensorperf::runtime
