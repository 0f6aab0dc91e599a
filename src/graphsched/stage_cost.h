// What a stage costs, for the search (ios_search.h).
//
// measured: the stage runs on a profiling executor (runtime::Executor loaded with reuse_memory =
//   false, so any steps may run at once) and its median over a few timed runs is its cost. Each
//   measurement is also a record in the database (workload "ios-stage:<hash>" of the stage's content:
//   its groups' threads and each operator's workload, provider, config and, for a kernel with a
//   layout of its own, the layouts it reads and writes (runtime::StepInfo::layouts); provider "graphsched"),
//   so a later search of the same stages on the same device measures nothing.
// predicted: a stage's cost composed from its operators' costs alone: the longest group's sum at
//   that group's threads, scaled, plus a share of the serial time of all the stage's operators for
//   groups that share the memory system (Contention below), plus a barrier. Operators' costs come
//   from single-operator measurements (cached like stages), i.e. one measurement per operator and
//   thread count instead of one per candidate stage.
#pragma once

#include <map>
#include <unordered_map>
#include <memory>
#include <string>
#include <vector>

#include "db/record_store.h"
#include "graphsched/ios_search.h"
#include "graphsched/op_graph.h"
#include "runtime/executor.h"

namespace tensorperf::graphsched {

// Runs merged stages (merge.h) for MeasuredStageCost.
class MergedStageTimer {
 public:
  virtual ~MergedStageTimer() = default;
  virtual Result<double> time_merged(const std::vector<int>& ops, int threads) = 0;
};

class MeasuredStageCost {
 public:
  // `profiling` must be loaded with reuse_memory = false over the graph `g` was made from. `store`
  // (may be null) caches measurements; `merged` (may be null) times merged stages. `timing`: what
  // the caches hold when a stage's run starts (Executor::time_stage); the records say which rule
  // timed them, and each rule finds only its own. `clock_mhz`: this
  // host's clock, kept in the records; a cached record measured more than 1% from it (another host
  // of the same device key) is not used. 0: unknown (every cached record is used).
  MeasuredStageCost(runtime::Executor& profiling, const OpGraph& g, db::RecordStore* store, std::string device_key,
                    std::string target, MergedStageTimer* merged = nullptr, int repeat = 5,
                    runtime::StageTiming timing = runtime::StageTiming::kWarm,
                    double clock_mhz = 0);

  Result<double> operator()(const StageChoice& c);
  // Seconds of operator `op` alone on `threads` threads.
  Result<double> op_cost(int op, int threads);

  int64_t measured() const { return measured_; }  // stages timed by this object
  int64_t from_store() const { return from_store_; }
  double timing_s() const { return timing_s_; }    // wall time spent running stages (compiles included)
  double storing_s() const { return storing_s_; }  // wall time spent writing their records

 private:
  std::string content_key(const StageChoice& c) const;
  Status load_store();  // every stage record of the device, once


  runtime::Executor& profiling_;
  const OpGraph& g_;
  db::RecordStore* store_;
  std::string device_key_, target_;
  MergedStageTimer* merged_;
  int repeat_;
  runtime::StageTiming timing_;
  double clock_mhz_;
  int64_t measured_ = 0, from_store_ = 0;
  double timing_s_ = 0, storing_s_ = 0;
  bool loaded_ = false;
  std::unordered_map<std::string, double> known_;  // by stage workload key: what the store holds
};

// How much the groups of a concurrent stage slow each other down (predicted costs). A stage of
// several groups costs `scale` times its longest group (each group its operators' times at its own
// threads) plus `shared` times the serial time of all its operators: the part of an operator's time
// that more threads do not shorten (Amdahl's law fitted on its time at its group's threads and at
// all the threads), which is what memory-bound operators spend on the memory system the groups
// share. Operators that scale well barely slow their neighbours; ones that do not, do.
struct Contention {
  double scale = 1.0;
  double shared = 0.0;
};

// One concurrent stage as the contention model sees it, with what it measured.
struct ContentionSample {
  double longest_s = 0;  // the longest group's operators alone, at the group's threads
  double serial_s = 0;   // the serial time of all its operators (see Contention)
  double measured_s = 0;
};

// The Contention that fits `samples` best in relative error (least squares on predicted/measured -
// 1, both terms non-negative); {1, 0} without samples.
Contention fit_contention(const std::vector<ContentionSample>& samples);

// Stage costs composed from operator costs (see above and Contention); `threads` are the cores all
// the stages share, `barrier_s` is added to every stage. A merged stage costs what `merged_cost`
// says (the merged kernel alone); without it merging is not offered.
class ComposedStageCost {
 public:
  using OpCost = std::function<Result<double>(int op, int threads)>;
  using MergedCost = std::function<Result<double>(const std::vector<int>& ops, int threads)>;
  ComposedStageCost(OpCost op_cost, Contention contention, double barrier_s, int threads, MergedCost merged_cost = {});
  Result<double> operator()(const StageChoice& c);
  // The two terms of a concurrent (not merged) stage's cost, as a sample without its measurement.
  Result<ContentionSample> terms(const StageChoice& c);

 private:
  Result<double> cost(int op, int threads);

  OpCost op_cost_;
  MergedCost merged_cost_;
  std::map<std::pair<int, int>, double> cache_;
  Contention contention_;
  double barrier_s_;
  int threads_;
};

}  // namespace tensorperf::graphsched
