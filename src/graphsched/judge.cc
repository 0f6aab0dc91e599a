#include "graphsched/judge.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <random>

#include "base/median.h"
#include "graphsched/scheduler.h"

namespace tensorperf::graphsched {

namespace {

// One round of a candidate: the median of `runs` whole runs, in ms.
Result<double> time_round(runtime::Executor& e, int runs) {
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    TP_RETURN_IF_ERROR(e.run());
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(ms);
}

// A candidate's rounds against the first's, round by round (the first min(sizes) rounds).
struct RoundsAgainstFirst {
  double relative = 0;  // median per-round ratio
  int wins = 0;         // rounds in which it ran faster
  size_t rounds = 0;
};

RoundsAgainstFirst against_first(const std::vector<double>& first_ms, const std::vector<double>& ms) {
  RoundsAgainstFirst c;
  c.rounds = std::min(first_ms.size(), ms.size());
  std::vector<double> ratios;
  for (size_t r = 0; r < c.rounds; ++r) {
    ratios.push_back(ms[r] / first_ms[r]);
    c.wins += ms[r] < first_ms[r];
  }
  if (c.rounds > 0) c.relative = median(ratios);
  return c;
}

// The judge's rule: faster by the margin at the median, and in min_wins of the rounds.
bool clearly_faster(const RoundsAgainstFirst& c, const JudgeOptions& judge) {
  const int needed = static_cast<int>(std::ceil(judge.min_wins * static_cast<double>(c.rounds) - 1e-9));
  return c.relative <= 1.0 - judge.margin && c.wins >= needed;
}

}  // namespace

Result<Verdict> judge_schedules(const ir::Graph& g, const std::vector<Candidate>& candidates,
                                const runtime::ExecutorOptions& options, const JudgeOptions& judge) {
  if (candidates.empty()) return Status::InvalidArgument("no schedules to judge");
  if (judge.rounds < 1 || judge.runs_per_round < 1) return Status::InvalidArgument("rounds and runs must be at least 1");
  if (judge.confirm_rounds < 0) return Status::InvalidArgument("confirmation rounds must be at least 0");
  std::vector<std::unique_ptr<runtime::Executor>> executors;
  for (const Candidate& c : candidates) {
    Result<std::unique_ptr<runtime::Executor>> e = load_scheduled(g, c.schedule, options);
    if (!e.ok()) return e.status().WithContext(c.name + " schedule");
    executors.push_back(std::move(*e));
  }
  Verdict v;
  // The same inputs everywhere; every candidate's outputs against the first's.
  runtime::Executor& first = *executors[0];
  std::mt19937_64 rng(7);
  for (size_t i = 0; i < first.num_inputs(); ++i) first.input(i).fill_random(rng);
  for (auto& e : executors) {
    for (size_t i = 0; i < first.num_inputs(); ++i)
      std::copy(first.input(i).bytes(), first.input(i).bytes() + first.input(i).type().num_bytes(), e->input(i).bytes());
    TP_RETURN_IF_ERROR(e->run());
  }
  for (size_t k = 1; k < executors.size(); ++k)
    for (size_t i = 0; i < first.num_outputs(); ++i) {
      const kernels::HostTensor& a = first.output(i);
      const kernels::HostTensor& b = executors[k]->output(i);
      double scale = 1e-6;
      for (int64_t j = 0; j < a.num_elements(); ++j) scale = std::max(scale, std::abs(static_cast<double>(a.f32()[j])));
      for (int64_t j = 0; j < a.num_elements(); ++j)
        v.max_output_difference =
            std::max(v.max_output_difference, std::abs(static_cast<double>(a.f32()[j]) - b.f32()[j]) / scale);
    }
  // Rounds in rotating order: the machine's speed drifts, a round's candidates see the same drift.
  v.rounds_ms.assign(candidates.size(), {});
  for (int r = 0; r < judge.rounds; ++r)
    for (size_t n = 0; n < candidates.size(); ++n) {
      const size_t k = (n + static_cast<size_t>(r)) % candidates.size();
      TP_ASSIGN_OR_RETURN(const double ms, time_round(*executors[k], judge.runs_per_round));
      v.rounds_ms[k].push_back(ms);
    }
  decide(v, judge);
  if (v.best != 0) {
    // The pick and the first alone, alternating which runs first.
    const size_t pair[2] = {0, v.best};
    for (int r = 0; r < judge.confirm_rounds; ++r)
      for (int n = 0; n < 2; ++n) {
        const size_t k = pair[(n + r) % 2];
        TP_ASSIGN_OR_RETURN(const double ms, time_round(*executors[k], judge.runs_per_round));
        (k == 0 ? v.confirm_first_ms : v.confirm_picked_ms).push_back(ms);
      }
  }
  confirm(v, judge);
  return v;
}

void confirm(Verdict& v, const JudgeOptions& judge) {
  v.picked = v.best;
  v.confirm_relative = 0;
  v.confirm_wins = 0;
  if (v.picked == 0) return;
  const RoundsAgainstFirst c = against_first(v.confirm_first_ms, v.confirm_picked_ms);
  if (c.rounds == 0) return;
  v.confirm_relative = c.relative;
  v.confirm_wins = c.wins;
  if (!clearly_faster(c, judge)) v.best = 0;
}

void decide(Verdict& v, const JudgeOptions& judge) {
  v.latency_ms.clear();
  v.relative.clear();
  v.wins.clear();
  v.best = 0;
  for (size_t k = 0; k < v.rounds_ms.size(); ++k) {
    v.latency_ms.push_back(median(v.rounds_ms[k]));
    const RoundsAgainstFirst c = against_first(v.rounds_ms[0], v.rounds_ms[k]);
    v.relative.push_back(c.relative);
    v.wins.push_back(c.wins);
    if (k > 0 && clearly_faster(c, judge) && c.relative < v.relative[v.best]) v.best = k;
  }
}

}  // namespace tensorperf::graphsched
