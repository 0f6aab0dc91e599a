// Runs the concurrent groups of a stage (stage_schedule.h) and returns when all are done (a stage's
// barrier). Two ways, chosen per stage so that OpenMP starts no threads from one run to the next:
//
// - Every group has one thread: task k runs on thread k of an OpenMP team of the calling thread,
//   task 0 on the calling thread. It is the team oneDNN's kernels use from that thread, so the
//   groups run on threads that are already awake (OpenMP's workers spin a while after each parallel
//   region) instead of beside them. The team has at least `team` threads (the thread count of the
//   process's other parallel regions; the ones beyond the groups wait at its barrier): libgomp ends
//   the workers that a smaller team leaves out, and the next region of `team` threads would start
//   them again.
// - Some group has several threads: each group runs on a thread of the pool's own, kept for its
//   thread count and its place among the stage's groups of that count; a one-thread group may run
//   on the calling thread. A kernel of k threads in such a thread opens a team of k threads that
//   libgomp keeps for the next run, since it is that thread's outermost team; a thread that waits
//   `idle` for its next group ends, and its team with it. (A team nested in the
//   stage's team, the alternative, is started afresh at every parallel region: libgomp reuses
//   threads only for outermost teams. At 16 threads that made a model's concurrent stages twice as
//   slow as timed alone, and the whole-team stages after them four times.) While such teams exist
//   the process has more OpenMP threads than CPUs, and libgomp's default wait policy then lets the
//   whole team sleep between kernels: the commands that run stage schedules raise that spin count
//   (omp_wait_policy.h).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "base/status.h"

namespace tensorperf::runtime {

class GroupPool {
 public:
  // `workers`: a stage has at most workers + 1 groups. `team`: see above. `idle`: how long a thread
  // of the pool's own waits for its next group before it ends (the next group starts it again).
  explicit GroupPool(int workers, int team = 1, std::chrono::milliseconds idle = std::chrono::milliseconds(50));
  ~GroupPool();
  GroupPool(const GroupPool&) = delete;
  GroupPool& operator=(const GroupPool&) = delete;

  int workers() const { return workers_; }
  // REQUIRES: tasks.size() <= workers() + 1. threads[k] is group k's thread count (empty: one each).
  // The first failing task's status (in task order).
  Status run(const std::vector<std::function<Status()>>& tasks, const std::vector<int>& threads = {});

 private:
  class Worker;
  Status run_on_team(const std::vector<std::function<Status()>>& tasks);
  Status run_on_workers(const std::vector<std::function<Status()>>& tasks, const std::vector<int>& threads);

  int workers_;
  int team_;
  std::chrono::milliseconds idle_;
  std::atomic<int> pending_{0};  // groups of the running stage not done on the pool's threads
  std::map<std::pair<int, int>, std::unique_ptr<Worker>> kept_;  // (thread count, place) -> thread
};

}  // namespace tensorperf::runtime
