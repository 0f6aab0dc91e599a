// Threads that run the concurrent groups of a stage (stage_schedule.h). run() hands task 0 to the
// calling thread and task k to worker k-1, and returns when all are done: a stage's barrier. Idle
// workers sleep (they do not spin: a stage of one group uses every core for its own kernels).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "base/status.h"

namespace tensorperf::runtime {

class GroupPool {
 public:
  explicit GroupPool(int workers);
  ~GroupPool();
  GroupPool(const GroupPool&) = delete;
  GroupPool& operator=(const GroupPool&) = delete;

  int workers() const { return static_cast<int>(threads_.size()); }
  // REQUIRES: tasks.size() <= workers() + 1. The first failing task's status (in task order).
  Status run(const std::vector<std::function<Status()>>& tasks);

 private:
  void work(int index);

  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable start_, done_;
  const std::vector<std::function<Status()>>* tasks_ = nullptr;
  std::vector<Status> results_;
  uint64_t epoch_ = 0;
  int pending_ = 0;
  bool stop_ = false;
};

}  // namespace tensorperf::runtime
