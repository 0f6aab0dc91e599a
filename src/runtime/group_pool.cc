#include "runtime/group_pool.h"

namespace tensorperf::runtime {

GroupPool::GroupPool(int workers) {
  for (int i = 0; i < workers; ++i) threads_.emplace_back([this, i] { work(i); });
}

GroupPool::~GroupPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  start_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void GroupPool::work(int index) {
  uint64_t seen = 0;
  for (;;) {
    const std::function<Status()>* task = nullptr;
    {
      std::unique_lock<std::mutex> lock(mu_);
      start_.wait(lock, [&] { return stop_ || epoch_ != seen; });
      if (stop_) return;
      seen = epoch_;
      if (tasks_ != nullptr && static_cast<size_t>(index + 1) < tasks_->size()) task = &(*tasks_)[index + 1];
    }
    if (task == nullptr) continue;
    Status st = (*task)();
    std::lock_guard<std::mutex> lock(mu_);
    results_[index + 1] = std::move(st);
    if (--pending_ == 0) done_.notify_one();
  }
}

Status GroupPool::run(const std::vector<std::function<Status()>>& tasks) {
  if (tasks.empty()) return Status::Ok();
  if (tasks.size() > threads_.size() + 1)
    return Status::Internal("a stage of " + std::to_string(tasks.size()) + " groups on a pool of " +
                            std::to_string(threads_.size() + 1) + " threads");
  if (tasks.size() == 1) return tasks[0]();
  {
    std::lock_guard<std::mutex> lock(mu_);
    tasks_ = &tasks;
    results_.assign(tasks.size(), Status::Ok());
    pending_ = static_cast<int>(tasks.size()) - 1;
    ++epoch_;
  }
  start_.notify_all();
  Status first = tasks[0]();
  std::unique_lock<std::mutex> lock(mu_);
  done_.wait(lock, [&] { return pending_ == 0; });
  tasks_ = nullptr;
  if (!first.ok()) return first;
  for (const Status& st : results_)
    if (!st.ok()) return st;
  return Status::Ok();
}

}  // namespace tensorperf::runtime
