// Runs the concurrent groups of a stage (stage_schedule.h): task k on thread k of an OpenMP team,
// task 0 on the calling thread, and returns when all are done (a stage's barrier). OpenMP's team is
// the one oneDNN's kernels use from the calling thread, so the stage's groups run on threads that
// are already awake (OpenMP's workers spin a while after each parallel region) instead of beside
// them: on a machine with as many cores as the stage has groups nothing is oversubscribed. Inside
// a group, kernels run with their own thread count on a nested OpenMP team (a group of one thread
// runs them in its own thread), so the groups of a stage use as many threads as they were given.
#pragma once

#include <functional>
#include <vector>

#include "base/status.h"

namespace tensorperf::runtime {

class GroupPool {
 public:
  explicit GroupPool(int workers) : workers_(workers) {}
  int workers() const { return workers_; }
  // REQUIRES: tasks.size() <= workers() + 1. The first failing task's status (in task order).
  Status run(const std::vector<std::function<Status()>>& tasks);

 private:
  int workers_;
};

}  // namespace tensorperf::runtime
