#include "runtime/group_pool.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace tensorperf::runtime {
namespace {

// How long a waiting thread polls before it sleeps: a stage of a model at batch 1 takes a few tens
// to hundreds of microseconds, so a thread polls about as long as a short stage and sleeps beyond.
constexpr auto kPoll = std::chrono::microseconds(50);

void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Polls `value` for kPoll: its new value once it differs from `old`, else `old`.
template <typename T>
T poll(const std::atomic<T>& value, T old) {
  const auto until = std::chrono::steady_clock::now() + kPoll;
  for (int i = 0;; ++i) {
    if (T now = value.load(std::memory_order_acquire); now != old) return now;
    if ((i & 63) == 63 && std::chrono::steady_clock::now() > until) return old;
    relax();
  }
}

// Waits until `value` differs from `old`: polls, then sleeps (a futex under libstdc++).
template <typename T>
T wait_change(const std::atomic<T>& value, T old) {
  for (T now = poll(value, old);; now = value.load(std::memory_order_acquire)) {
    if (now != old) return now;
    value.wait(old, std::memory_order_acquire);
  }
}

Status run_task(const std::function<Status()>& task) {
  try {
    return task();
  } catch (const std::exception& e) {
    return Status::Internal(std::string("a stage's group threw: ") + e.what());
  }
}

}  // namespace

// A thread that runs one task at a time, posted by the pool's caller. After `idle` without a task
// it ends, and with it the OpenMP team it opened; the next task starts it again. (While the pool's
// teams exist, the process has more OpenMP threads than cores, and libgomp then lets every idle
// worker spin only briefly before it sleeps: the whole-team stages of another executor in the
// process, or of this one's model after a pause, would wake their team from sleep at every kernel.)
class GroupPool::Worker {
 public:
  explicit Worker(std::chrono::milliseconds idle) : idle_(idle) {}
  ~Worker() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      generation_.fetch_add(1, std::memory_order_release);
    }
    cv_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

  // Runs `task` into `result`, then decrements `pending` (waking the caller at zero).
  void post(const std::function<Status()>* task, Status* result, std::atomic<int>* pending) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      task_ = task;
      result_ = result;
      pending_ = pending;
      const uint32_t before = generation_.fetch_add(1, std::memory_order_release);
      if (!running_) {
        // Not started yet, or ended when idle: it set running_ under the lock and then only returns.
        if (thread_.joinable()) thread_.join();
        running_ = true;
        thread_ = std::thread([this, before] { loop(before); });
      }
    }
    cv_.notify_one();
  }

 private:
  void loop(uint32_t seen) {
    for (;;) {
      uint32_t now = poll(generation_, seen);
      if (now == seen) {
        std::unique_lock<std::mutex> lock(mu_);
        if (!cv_.wait_for(lock, idle_, [&] { return generation_.load(std::memory_order_acquire) != seen; })) {
          running_ = false;
          return;
        }
        now = generation_.load(std::memory_order_acquire);
      }
      seen = now;
      if (stop_) return;
      *result_ = run_task(*task_);
      std::atomic<int>* pending = pending_;  // the pool's: it outlives this thread
      if (pending->fetch_sub(1, std::memory_order_acq_rel) == 1) pending->notify_one();
    }
  }

  const std::chrono::milliseconds idle_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<uint32_t> generation_{0};  // one more per posted task (and at the end)
  // Written under mu_ before a generation's release, read after its acquire.
  bool stop_ = false;
  bool running_ = false;  // guarded by mu_
  const std::function<Status()>* task_ = nullptr;
  Status* result_ = nullptr;
  std::atomic<int>* pending_ = nullptr;
  std::thread thread_;
};

GroupPool::GroupPool(int workers, int team, std::chrono::milliseconds idle)
    : workers_(workers), team_(std::max(team, 1)), idle_(idle) {}
GroupPool::~GroupPool() = default;

Status GroupPool::run(const std::vector<std::function<Status()>>& tasks, const std::vector<int>& threads) {
  if (tasks.empty()) return Status::Ok();
  if (tasks.size() > static_cast<size_t>(workers_) + 1)
    return Status::Internal("a stage of " + std::to_string(tasks.size()) + " groups on a pool of " +
                            std::to_string(workers_ + 1) + " threads");
  if (!threads.empty() && threads.size() != tasks.size())
    return Status::Internal("a stage of " + std::to_string(tasks.size()) + " groups given " +
                            std::to_string(threads.size()) + " thread counts");
  if (tasks.size() == 1) return run_task(tasks[0]);
  if (std::any_of(threads.begin(), threads.end(), [](int t) { return t > 1; })) return run_on_workers(tasks, threads);
  return run_on_team(tasks);
}

Status GroupPool::run_on_team(const std::vector<std::function<Status()>>& tasks) {
  const int n = static_cast<int>(tasks.size());
  std::vector<Status> results(tasks.size(), Status::Ok());
  int started = 0;
#pragma omp parallel num_threads(std::max(n, team_)) reduction(+ : started)
  {
    const int i = omp_get_thread_num();
    if (i < n) {
      results[i] = run_task(tasks[i]);
      started = 1;
    }
  }
  if (started != n) return Status::Internal("OpenMP ran " + std::to_string(started) + " of a stage's " + std::to_string(n) + " groups");
  for (const Status& st : results)
    if (!st.ok()) return st;
  return Status::Ok();
}

Status GroupPool::run_on_workers(const std::vector<std::function<Status()>>& tasks, const std::vector<int>& threads) {
  std::vector<Status> results(tasks.size(), Status::Ok());
  // The calling thread takes the first one-thread group, if any: it opens no team there, so its own
  // team (the whole-team stages') keeps its workers.
  int local = -1;
  for (size_t k = 0; k < tasks.size() && local < 0; ++k)
    if (threads[k] == 1) local = static_cast<int>(k);
  pending_.store(static_cast<int>(tasks.size()) - (local >= 0 ? 1 : 0), std::memory_order_relaxed);
  std::map<int, int> place;  // thread count -> groups of that count posted so far
  for (size_t k = 0; k < tasks.size(); ++k) {
    if (static_cast<int>(k) == local) continue;
    std::unique_ptr<Worker>& w = kept_[{threads[k], place[threads[k]]++}];
    if (!w) w = std::make_unique<Worker>(idle_);
    w->post(&tasks[k], &results[k], &pending_);
  }
  if (local >= 0) results[local] = run_task(tasks[local]);
  for (int left = pending_.load(std::memory_order_acquire); left != 0;) left = wait_change(pending_, left);
  for (const Status& st : results)
    if (!st.ok()) return st;
  return Status::Ok();
}

}  // namespace tensorperf::runtime
