#include "tune/task_scheduler.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tensorperf::tune {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TaskScheduler::TaskScheduler(std::vector<SchedulerTask> tasks, SchedulerOptions options)
    : tasks_(std::move(tasks)), options_(options), state_(tasks_.size()), rng_(options.seed) {
  for (State& s : state_) s.best = kInf;
}

void TaskScheduler::restore(size_t task, int64_t trials, double best_s, int64_t trials_since_best) {
  State& s = state_[task];
  s.trials = trials;
  s.best = best_s;
  s.since_best = trials_since_best;
  if (trials > 0) {
    s.rounds = 1;
    s.history = {best_s};
  }
  if (options_.patience > 0 && s.since_best >= options_.patience) s.stopped = true;
}

std::optional<size_t> TaskScheduler::next() {
  // Warm-up: every live task gets its first round in order.
  for (size_t i = 0; i < state_.size(); ++i)
    if (!state_[i].stopped && state_[i].rounds == 0) return i;
  std::vector<size_t> live;
  for (size_t i = 0; i < state_.size(); ++i)
    if (!state_[i].stopped) live.push_back(i);
  if (live.empty()) return std::nullopt;
  if (std::bernoulli_distribution(options_.epsilon)(rng_))
    return live[std::uniform_int_distribution<size_t>(0, live.size() - 1)(rng_)];
  size_t pick = live[0];
  double best_grad = kInf;
  for (size_t i : live) {
    double g = gradient(i);
    if (g < best_grad) {
      best_grad = g;
      pick = i;
    }
  }
  return pick;
}

double TaskScheduler::gradient(size_t i) const {
  const State& s = state_[i];
  // A task without a working config yet: the most urgent (its latency is unknown).
  if (!std::isfinite(s.best)) return -kInf;
  double backward = 0;
  if (static_cast<int>(s.history.size()) > options_.window) {
    const double then = s.history[s.history.size() - 1 - options_.window];
    if (std::isfinite(then)) backward = (s.best - then) / options_.window;
  }
  // Forward: best shrinking like best / rounds, or the similar tasks' best throughput reached.
  double next = s.best - s.best / std::max(1, s.rounds);
  if (!tasks_[i].group.empty() && tasks_[i].flops > 0) {
    double max_flops_per_s = 0;
    for (size_t j = 0; j < tasks_.size(); ++j)
      if (tasks_[j].group == tasks_[i].group && std::isfinite(state_[j].best) && state_[j].best > 0)
        max_flops_per_s = std::max(max_flops_per_s, tasks_[j].flops / state_[j].best);
    if (max_flops_per_s > 0) next = std::min(next, options_.beta * tasks_[i].flops / max_flops_per_s);
  }
  const double forward = next - s.best;
  return tasks_[i].weight * (options_.alpha * backward + (1 - options_.alpha) * forward);
}

void TaskScheduler::record(size_t task, int64_t trials, double best_s) {
  State& s = state_[task];
  if (best_s < s.best) {
    s.since_best = 0;
    s.best = best_s;
  } else {
    s.since_best += trials;
  }
  s.trials += trials;
  ++s.rounds;
  s.history.push_back(s.best);
  if (options_.patience > 0 && s.since_best >= options_.patience) s.stopped = true;
}

void TaskScheduler::add_external(size_t task, int64_t trials, double best_s) {
  State& s = state_[task];
  s.trials += trials;
  if (best_s < s.best) {
    s.best = best_s;
    s.since_best = 0;
  }
}

void TaskScheduler::exhaust(size_t task) { state_[task].stopped = true; }

double TaskScheduler::objective() const {
  double total = 0;
  for (size_t i = 0; i < state_.size(); ++i)
    if (std::isfinite(state_[i].best)) total += tasks_[i].weight * state_[i].best;
  return total;
}

int64_t TaskScheduler::total_trials() const {
  int64_t t = 0;
  for (const State& s : state_) t += s.trials;
  return t;
}

}  // namespace tensorperf::tune
