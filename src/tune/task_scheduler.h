// The task scheduler: across a model's tasks, which one gets the next batch of trials, as Ansor's
// gradient-based scheduler decides it. The objective is the model's estimated latency, the sum over
// tasks of weight (instances in the model) x best latency. After a round-robin warm-up (one batch
// each), the next batch goes to the task whose objective is expected to fall the most per batch:
// alpha x its recent improvement rate + (1 - alpha) x an optimistic forward estimate (its best
// latency shrinking like best / rounds, or reaching the best throughput of a similar task, whichever
// is lower), times its weight; with a small probability a random task. A task whose best has not
// improved for `patience` trials stops early; a task without candidates left stops too.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace tensorperf::tune {

struct SchedulerOptions {
  double alpha = 0.2;     // weight of the backward (observed) gradient
  double beta = 2.0;      // the similar-task estimate: reaching 1 / beta of their best throughput
  int window = 3;         // rounds the backward gradient looks back
  int patience = 256;     // trials without improvement after which a task stops (<= 0: never)
  double epsilon = 0.05;  // share of random choices after the warm-up
  uint64_t seed = 0;
};

struct SchedulerTask {
  double weight = 1;   // instances in the model
  double flops = 0;    // of one instance (for the similar-task estimate)
  std::string group;   // tasks of one group (an op kind) are similar; empty: similar to none
};

class TaskScheduler {
 public:
  TaskScheduler(std::vector<SchedulerTask> tasks, SchedulerOptions options);

  // Restores a task's history before the first next(): its trials so far, its best latency, and how
  // many of those trials came after its best was found (for early stopping).
  void restore(size_t task, int64_t trials, double best_s, int64_t trials_since_best);

  // The task to give the next batch, or nullopt when every task has stopped.
  std::optional<size_t> next();
  // A batch of `trials` measurements of `task` ended; best_s is its best latency now (+inf: none).
  void record(size_t task, int64_t trials, double best_s);
  // Measurements of `task` that another run sharing the store made: they count, without a round.
  void add_external(size_t task, int64_t trials, double best_s);
  // The task's tuner has nothing new to offer: it stops.
  void exhaust(size_t task);

  double objective() const;  // sum of weight x best over tasks with a finite best
  int64_t trials(size_t task) const { return state_[task].trials; }
  int64_t total_trials() const;
  bool stopped(size_t task) const { return state_[task].stopped; }

 private:
  struct State {
    int64_t trials = 0, since_best = 0;
    int rounds = 0;
    double best = 0;  // +inf when none
    std::vector<double> history;  // best after each round
    bool stopped = false;
  };
  double gradient(size_t task) const;

  std::vector<SchedulerTask> tasks_;
  SchedulerOptions options_;
  std::vector<State> state_;
  std::mt19937_64 rng_;
};

}  // namespace tensorperf::tune
