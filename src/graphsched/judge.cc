#include "graphsched/judge.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <random>

#include "base/median.h"
#include "graphsched/scheduler.h"

namespace tensorperf::graphsched {
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
      std::vector<double> runs;
      for (int i = 0; i < judge.runs_per_round; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        TP_RETURN_IF_ERROR(executors[k]->run());
        runs.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      }
      v.rounds_ms[k].push_back(median(runs));
    }
  decide(v, judge);
  if (v.best != 0) {
    // The pick and the first alone, alternating which runs first.
    const size_t pair[2] = {0, v.best};
    for (int r = 0; r < judge.confirm_rounds; ++r)
      for (int n = 0; n < 2; ++n) {
        const size_t k = pair[(n + r) % 2];
        std::vector<double> runs;
        for (int i = 0; i < judge.runs_per_round; ++i) {
          const auto t0 = std::chrono::steady_clock::now();
          TP_RETURN_IF_ERROR(executors[k]->run());
          runs.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
        (k == 0 ? v.confirm_first_ms : v.confirm_picked_ms).push_back(median(runs));
      }
  }
  confirm(v, judge);
  return v;
}

void confirm(Verdict& v, const JudgeOptions& judge) {
  v.picked = v.best;
  v.confirm_relative = 0;
  v.confirm_wins = 0;
  const size_t rounds = std::min(v.confirm_first_ms.size(), v.confirm_picked_ms.size());
  if (v.picked == 0 || rounds == 0) return;
  std::vector<double> ratios;
  for (size_t r = 0; r < rounds; ++r) {
    ratios.push_back(v.confirm_picked_ms[r] / v.confirm_first_ms[r]);
    v.confirm_wins += v.confirm_picked_ms[r] < v.confirm_first_ms[r];
  }
  v.confirm_relative = median(ratios);
  const int needed = static_cast<int>(std::ceil(judge.min_wins * static_cast<double>(rounds) - 1e-9));
  if (!(v.confirm_relative <= 1.0 - judge.margin && v.confirm_wins >= needed)) v.best = 0;
}

void decide(Verdict& v, const JudgeOptions& judge) {
  v.latency_ms.clear();
  v.relative.clear();
  v.wins.clear();
  v.best = 0;
  const size_t rounds = v.rounds_ms.empty() ? 0 : v.rounds_ms[0].size();
  const int needed = static_cast<int>(std::ceil(judge.min_wins * static_cast<double>(rounds) - 1e-9));
  for (size_t k = 0; k < v.rounds_ms.size(); ++k) {
    v.latency_ms.push_back(median(v.rounds_ms[k]));
    std::vector<double> ratios;
    int wins = 0;
    for (size_t r = 0; r < rounds; ++r) {
      ratios.push_back(v.rounds_ms[k][r] / v.rounds_ms[0][r]);
      wins += v.rounds_ms[k][r] < v.rounds_ms[0][r];
    }
    v.relative.push_back(median(ratios));
    v.wins.push_back(wins);
    const bool clear = v.relative[k] <= 1.0 - judge.margin && wins >= needed;
    if (k > 0 && clear && v.relative[k] < v.relative[v.best]) v.best = k;
  }
}

}  // namespace tensorperf::graphsched
