// IOS's dynamic programming (Ding et al., "IOS: Inter-Operator Scheduler for CNN Acceleration",
// MLSys'21) over the operators of one block, for CPUs.
//
// A state is the set S of a block's operators not yet scheduled (closed under predecessors within
// the block). Its last stage is an ending E of S: a non-empty subset that holds every successor, in
// S, of each of its operators. cost(S) = min over endings E of cost(S \ E) + stage_cost(E), and the
// schedule is read back from the minimising endings. An ending runs either
//   - concurrently (`parallel`): its weakly connected components are its groups, each group's
//     operators in order on its own threads; or
//   - merged (`merge`): its operators become one kernel (graphsched/merge.h), when they can.
// Pruning as in IOS: a group holds at most r operators and a stage at most s groups; on a CPU a stage
// also has at most `threads` groups (a group needs a core). Beyond IOS, each state also tries all its
// sinks as one stage (greedy's wide stage, from the end), packed onto min(s, threads) lanes
// (pack_stage): many small independent operators then pay one barrier between them and run each on
// one core. Where the operators between two cuts are more than a block holds, the search runs over
// their chains (op_graph.h's contract_long_chains), so r counts chains there. `both` tries both
// kinds of stage.
// With a time budget (SearchOptions::time_budget_s) the search deepens over the groups a stage may
// hold (2, 4, ... up to min(s, threads)) and keeps, per block, the deepest search that finished in
// time; a block whose first search does not finish keeps the sequential schedule's stages.
// The baselines: `sequential` (one operator per stage on all threads) and `greedy` (each stage takes
// every ready operator, packed the same way).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "graphsched/op_graph.h"

namespace tensorperf::graphsched {

enum class Strategy { kSequential, kGreedy, kParallel, kMerge, kBoth };
std::string_view strategy_name(Strategy s);
Result<Strategy> parse_strategy(std::string_view name);  // "sequential", "greedy", "parallel", "merge", "both"

// One stage: groups of operator indices (each group in topological order) with a thread count per
// group, or one merged group (`merged`: its operators run as one kernel on all the threads).
struct StageChoice {
  std::vector<std::vector<int>> groups;
  std::vector<int> threads;
  bool merged = false;
  double cost_s = 0;  // set by the search: what the stage cost function said
};

struct SearchOptions {
  Strategy strategy = Strategy::kBoth;
  int r = 3;        // operators per group
  int s = 8;        // groups per stage
  int threads = 1;  // cores the stages share
  int max_block = 24;  // operators per block (at most 64)
  // Where the operators between two cuts are more than max_block, search over their chains as
  // units (op_graph.h's contract_long_chains) rather than cutting the region into many blocks.
  bool contract_chains = true;
  // A stage of several groups, or a merged one, is taken only where it gains at least this fraction
  // of its cost: the search charges it its cost x (1 + min_gain) (the stages' and the result's
  // cost_s stay what the stages cost). IOS takes any gain (0); on a shared machine a stage
  // estimated to gain a percent runs about as often slower in the whole model.
  double min_gain = 0;
  // Seconds the search may take (0: no limit). The endings a state offers grow with the groups a
  // stage may hold, min(s, threads): on 16 cores at s=8 a wide network's search costs tens of times
  // what it costs with 2 groups. With a budget, each block is searched first with at most 2 groups
  // per stage (or min(s, threads) where that is less), within a share of what is left of the budget
  // in proportion to its units; a block that does not finish in its share is searched again with
  // what is left at the end (its costed stages cached), and if it does not finish then either,
  // keeps its units' own stages, as the sequential schedule runs them. Then, where more groups are
  // allowed, the search deepens block by block (4, 8, ... up to min(s, threads)) until the budget
  // runs out, each block keeping the deepest search of it that finished. Stages are not costed past
  // the budget.
  double time_budget_s = 0;
};

// A stage's identity within one graph (its groups' threads and operator indices, merged or not):
// the key of the search's cost cache.
std::string stage_key(const StageChoice& c);

// Seconds a stage takes. Called once per distinct stage (the search caches it).
using StageCostFn = std::function<Result<double>(const StageChoice&)>;
// Whether these operators (an antichain with one shared input) can run as one merged kernel.
using CanMergeFn = std::function<bool(const std::vector<int>&)>;
// Seconds of one operator on `threads` threads (greedy's balance); may be empty.
using OpCostFn = std::function<Result<double>(int op, int threads)>;

// A cheap lower bound on what a (non-merged) stage costs; may be empty. With one, the search costs a
// candidate stage only when the bound says it could beat the best ending found so far for its
// state (branch and bound): the same result when the bound holds, far fewer stages costed.
using StageBoundFn = std::function<Result<double>(const StageChoice&)>;

struct SearchResult {
  std::vector<StageChoice> stages;
  double cost_s = 0;        // the sum of the stages' costs
  int64_t states = 0;       // DP states visited
  int64_t stages_costed = 0;  // distinct stages whose cost was asked for
  int64_t stages_pruned = 0;  // candidate stages the bound ruled out uncosted
  double search_s = 0;      // wall time of the search, costs included
  int lanes = 0;            // groups a stage could hold in the shallowest block's search that finished
                            // (1 where a block kept its units' own stages)
  bool budget_cut = false;  // the time budget stopped a search (lanes < min(s, threads))
  int blocks = 0;             // blocks the search ran over (0 for the baselines)
  int blocks_unsearched = 0;  // of those, the ones the budget left in their units' own stages
  int chains_split = 0;     // chains whose operators' own stages cost less than their stage
};

// How a stage's `threads` are split among `groups` groups: as evenly as possible, earlier groups
// taking the remainder.
std::vector<int> split_threads(int groups, int threads);

// A stage of independent `units` (each a list of operators in topological order, none depending on
// another unit's): each unit its own group when there are at most `lanes` (<= threads), with the
// threads split among them; else `lanes` groups, the units placed longest first onto the lane where
// they finish earliest (LPT), a unit's length its operators' `op_cost` at that lane's threads (its
// operator count when `op_cost` is empty). A group's operators are sorted (graph order is
// topological).
Result<StageChoice> pack_stage(const std::vector<std::vector<int>>& units, int lanes, int threads,
                               const OpCostFn& op_cost);

// Puts each run of consecutive stages of one group (not merged) in graph order. A search leaves such
// stages in whatever order its ties fell, though nothing tells one order from another on cost; this
// makes a schedule with no concurrent or merged stage run its operators in the sequential
// schedule's order: the same schedule. The run's stages go in dependency order, the one with the
// earliest first operator whenever several are free, and move whole with their costs; where that
// still leaves the operators out of graph order (a stage of a chain across another stage's
// operators), the run becomes one stage per operator in graph order, each with a share of its
// stage's cost in proportion to `op_cost` at the stage's threads (equal shares without it).
// Concurrent and merged stages stay where they are.
void order_single_stages(const OpGraph& g, std::vector<StageChoice>& stages, const OpCostFn& op_cost = {});

Result<SearchResult> schedule_graph(const OpGraph& g, const SearchOptions& options, const StageCostFn& cost,
                                    const CanMergeFn& can_merge = {}, const OpCostFn& op_cost = {},
                                    const StageBoundFn& bound = {});

}  // namespace tensorperf::graphsched
