// The whole model as the judge of candidate schedules. A search's stage costs are stages run alone
// and warm (their weights and inputs stay in cache between repetitions); in the model, each stage
// reads what the previous one wrote and weights that were evicted since. On 2 cores the measured
// estimates ran 20-45% under the model's time and ranked schedules wrongly (RandWire at batch 16:
// the greedy schedule estimated 7% slower than IOS's, ran 43% faster). So the schedule a user gets
// is the fastest of the candidates (the search's, the greedy baseline's, the sequential one) loaded
// for real and timed in interleaved rounds, after checking that they all compute the same outputs.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "ir/graph.h"
#include "runtime/executor.h"
#include "runtime/stage_schedule.h"

namespace tensorperf::graphsched {

struct Candidate {
  std::string name;  // "found", "greedy", "sequential", ...
  runtime::StageSchedule schedule;
};

struct JudgeOptions {
  int rounds = 5;           // each round runs every candidate, in rotating order
  int runs_per_round = 3;   // a round's time of a candidate: the median of this many runs
  // The first candidate (the incumbent: the sequential schedule) is kept unless another beats it
  // clearly: by a median ratio of at most 1 - margin, and in at least min_wins of the rounds (4 of
  // 5). On 2 shared cores a whole-model time moves by about 5% between rounds; a schedule that
  // wins by less, or only in some rounds, was as often slower when measured again.
  double margin = 0.03;
  double min_wins = 0.75;
  // A pick is confirmed before it replaces the first: `confirm_rounds` more rounds of the two alone,
  // in alternating order, in which it must beat the first clearly again (the same margin and
  // min_wins). A schedule that won the first rounds in a slow phase of the machine was seen to lose
  // in the rounds right after (NASNet-A at batch 16 on a 2-core AMD host: 0.96x). 0: no confirmation.
  int confirm_rounds = 5;
};

struct Verdict {
  // The first candidate, or the fastest (the earlier one on a tie) by `relative` of those that beat
  // it clearly (JudgeOptions::margin, min_wins): a ratio within a round is what stays comparable
  // while the machine's speed drifts (by up to 2x within minutes on shared cores).
  size_t best = 0;
  std::vector<double> relative;      // per candidate: the median over rounds of its time / the first's
  std::vector<double> latency_ms;    // per candidate: the median of its rounds
  std::vector<std::vector<double>> rounds_ms;  // per candidate, per round
  std::vector<int> wins;             // per candidate: rounds in which it ran faster than the first
  double max_output_difference = 0;  // relative to the first candidate's outputs, over all candidates
  // The confirmation (JudgeOptions::confirm_rounds): the candidate the first rounds picked (0: none,
  // nothing confirmed), the first's and its times per confirmation round, and its median ratio to the
  // first and rounds won there. `best` is `picked` where that confirmed it, else 0.
  size_t picked = 0;
  std::vector<double> confirm_first_ms, confirm_picked_ms;
  double confirm_relative = 0;
  int confirm_wins = 0;
};

// Fills v's relative, latency_ms, wins and best from v.rounds_ms (every candidate the same number of
// rounds, at least one).
void decide(Verdict& v, const JudgeOptions& judge);

// After decide() and the confirmation rounds (v.confirm_first_ms, v.confirm_picked_ms, one entry per
// round): sets picked to decide()'s best, confirm_relative, confirm_wins, and keeps best only if the
// pick beat the first clearly in those rounds too. With no confirmation rounds, best stays.
void confirm(Verdict& v, const JudgeOptions& judge);

// Loads each candidate (graphsched::load_scheduled: each must be made for `g`), runs all on the same
// random inputs and compares their outputs with the first's, then times them. REQUIRES: at least one
// candidate.
Result<Verdict> judge_schedules(const ir::Graph& g, const std::vector<Candidate>& candidates,
                                const runtime::ExecutorOptions& options, const JudgeOptions& judge = {});

}  // namespace tensorperf::graphsched
