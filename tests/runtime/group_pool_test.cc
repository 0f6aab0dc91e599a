// The stage runtime's threads: every group runs, failures come back in task order, a group of
// several threads gets a team of that many threads (not a serial region inside the stage's team,
// which ran a group of 8 threads on one), and no thread is started again from one run to the next
// (libgomp starts a nested team's threads afresh at every region, and ends the workers that a
// smaller team leaves out: at 16 threads that made concurrent stages and the stages after them
// several times slower in the model than alone).
#include "runtime/group_pool.h"

#include <gtest/gtest.h>
#include <omp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

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
  ASSERT_TRUE(pool.run(tasks, {2, 1, 3}).ok()) << "on the pool's own threads";
  EXPECT_EQ(ran.load(), 6);
  tasks[1] = [] { return Status::InvalidArgument("second"); };
  tasks[2] = [] { return Status::Internal("third"); };
  Status st = pool.run(tasks);
  EXPECT_EQ(st.message(), "second");
  EXPECT_EQ(pool.run(tasks, {1, 2, 2}).message(), "second");
  tasks.emplace_back([] { return Status::Ok(); });
  EXPECT_FALSE(pool.run(tasks).ok()) << "4 groups on a pool of 3 threads";
}

TEST(GroupPool, AGroupOfSeveralThreadsGetsATeamOfThatSize) {
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
  ASSERT_TRUE(pool.run(tasks, {2, 3}).ok());
  EXPECT_EQ(team[0], 2);
  EXPECT_EQ(team[1], 3);
}

// The kernel-side ids (Linux thread ids, not reused soon) of the threads of a team of `threads`.
std::set<long> team_ids(int threads) {
  std::set<long> ids;
  std::mutex mu;
  omp_set_num_threads(threads);
#pragma omp parallel
  {
    const long id = syscall(SYS_gettid);
    std::lock_guard<std::mutex> lock(mu);
    ids.insert(id);
  }
  return ids;
}

TEST(GroupPool, NoThreadIsStartedAgainFromOneRunToTheNext) {
  constexpr int kTeam = 3;                             // the executor's thread count: its whole-team stages' team
  GroupPool pool(1, kTeam, std::chrono::seconds(60));  // no thread of its own ends while idle here
  const std::set<long> callers = team_ids(kTeam);
  ASSERT_EQ(callers.size(), static_cast<size_t>(kTeam));
  std::set<long> pair;  // the 2-thread group's team
  std::vector<std::function<Status()>> mixed = {[&] {
                                                  pair = team_ids(2);
                                                  return Status::Ok();
                                                },
                                                [] { return Status::Ok(); }};
  std::vector<std::function<Status()>> singles(2, [] { return Status::Ok(); });
  std::set<long> first_pair;
  for (int run = 0; run < 3; ++run) {
    ASSERT_TRUE(pool.run(mixed, {2, 1}).ok());
    ASSERT_EQ(pair.size(), 2u);
    if (run == 0) first_pair = pair;
    EXPECT_EQ(pair, first_pair) << "run " << run << ": the 2-thread group's team was started again";
    ASSERT_TRUE(pool.run(singles, {1, 1}).ok());
    EXPECT_EQ(team_ids(kTeam), callers) << "run " << run << ": the calling thread's team lost workers";
  }
}

// A thread of the pool's own that waits longer than `idle` ends with its team (so that a process
// holding the pool has no more OpenMP threads than cores once it stops running concurrent stages),
// and the next stage starts them again.
TEST(GroupPool, AnIdleThreadEndsWithItsTeamAndTheNextStageStartsThemAgain) {
  GroupPool pool(1, 1, std::chrono::milliseconds(1));
  std::set<long> pair;
  std::vector<std::function<Status()>> mixed = {[&] {
                                                  pair = team_ids(2);
                                                  return Status::Ok();
                                                },
                                                [] { return Status::Ok(); }};
  ASSERT_TRUE(pool.run(mixed, {2, 1}).ok());
  const std::set<long> first = pair;
  ASSERT_EQ(first.size(), 2u);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_TRUE(pool.run(mixed, {2, 1}).ok());
  ASSERT_EQ(pair.size(), 2u);
  for (long id : pair) EXPECT_EQ(first.count(id), 0u) << "thread " << id << " outlived its idle time";
}

}  // namespace
}  // namespace tensorperf::runtime
