#include "runtime/group_pool.h"

#include <omp.h>

namespace tensorperf::runtime {

Status GroupPool::run(const std::vector<std::function<Status()>>& tasks) {
  if (tasks.empty()) return Status::Ok();
  if (tasks.size() > static_cast<size_t>(workers_) + 1)
    return Status::Internal("a stage of " + std::to_string(tasks.size()) + " groups on a pool of " +
                            std::to_string(workers_ + 1) + " threads");
  if (tasks.size() == 1) return tasks[0]();
  const int n = static_cast<int>(tasks.size());
  std::vector<Status> results(tasks.size(), Status::Ok());
  int started = 0;
  // A group of k > 1 threads runs its kernels on a nested team of k threads (oneDNN's and Halide's
  // alike, kernels/halide/jit_kernel.cc): nesting must be active one level below the stage's team.
  if (omp_get_max_active_levels() < 2) omp_set_max_active_levels(2);
#pragma omp parallel num_threads(n) reduction(+ : started)
  {
    const int i = omp_get_thread_num();
    if (i < n) {
      results[i] = tasks[i]();
      started = 1;
    }
  }
  if (started != n) return Status::Internal("OpenMP ran " + std::to_string(started) + " of a stage's " + std::to_string(n) + " groups");
  for (const Status& st : results)
    if (!st.ok()) return st;
  return Status::Ok();
}

}  // namespace tensorperf::runtime
