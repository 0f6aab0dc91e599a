// The IOS dynamic programming against brute force on small random graphs, blocks, the baselines and
// what every schedule must satisfy (each operator once, dependencies respected).
#include "graphsched/ios_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>
#include <thread>

#include "graphsched/schedule_build.h"
#include "runtime/stage_schedule.h"

namespace tensorperf::graphsched {
namespace {

// A cost model with the shape of a real one: an operator's time shrinks with threads (not
// linearly), concurrent groups pay for sharing memory bandwidth, every stage pays a barrier, and a
// merged stage costs less than its operators' sum.
struct SyntheticCost {
  std::vector<double> op_s;
  double op(int v, int threads) const { return op_s[v] / (1.0 + 0.5 * (threads - 1)); }
  double operator()(const StageChoice& c) const {
    if (c.merged) {
      double sum = 0;
      for (int v : c.groups[0]) sum += op(v, c.threads[0]);
      return 0.75 * sum + 2e-6;
    }
    double longest = 0;
    for (size_t k = 0; k < c.groups.size(); ++k) {
      double sum = 0;
      for (int v : c.groups[k]) sum += op(v, c.threads[k]);
      longest = std::max(longest, sum);
    }
    return longest * (1.0 + 0.05 * (c.groups.size() - 1)) + 5e-6;
  }
};

OpGraph random_graph(int n, std::mt19937& rng) {
  std::vector<std::pair<int, int>> edges;
  std::bernoulli_distribution edge(0.3);
  for (int v = 2; v < n; ++v)
    for (int u = 0; u < v; ++u)
      if (edge(rng)) edges.push_back({u, v});
  Result<OpGraph> g = OpGraph::from_edges(n, edges);
  EXPECT_TRUE(g.ok());
  return *g;
}

// Every schedule of `g` (all sequences of endings), scored by the same stage rules as the search
// (each stage of several groups, or merged, charged o.min_gain more than it costs).
double brute_force(const OpGraph& g, const SearchOptions& o, const SyntheticCost& cost, const CanMergeFn& can_merge) {
  const int n = g.size();
  std::vector<uint64_t> succ(n, 0), pred(n, 0);
  for (int v = 0; v < n; ++v)
    for (int u : g.preds[v]) succ[u] |= uint64_t{1} << v, pred[v] |= uint64_t{1} << u;
  const bool parallel = o.strategy == Strategy::kParallel || o.strategy == Strategy::kBoth;
  const bool merge = o.strategy == Strategy::kMerge || o.strategy == Strategy::kBoth;
  auto op_cost = [&](int v, int threads) -> Result<double> { return cost.op(v, threads); };
  const int lanes = std::min(o.s, o.threads);
  // A stage of ending e of state s: at most `lanes` groups of at most r operators, or all of s's
  // sinks packed onto the lanes.
  auto stage = [&](uint64_t e, uint64_t s) {
    uint64_t sinks = 0;
    for (int i = 0; i < n; ++i)
      if ((s >> i & 1) && (succ[i] & s) == 0) sinks |= uint64_t{1} << i;
    double best = INFINITY;
    std::vector<std::vector<int>> comps;
    uint64_t left = e;
    while (left) {
      uint64_t comp = left & (~left + 1);
      for (bool grew = true; grew;) {
        grew = false;
        for (int i = 0; i < n; ++i)
          if ((comp >> i & 1) && ((pred[i] | succ[i]) & e & ~comp)) comp |= (pred[i] | succ[i]) & e, grew = true;
      }
      std::vector<int> ops;
      for (int i = 0; i < n; ++i)
        if (comp >> i & 1) ops.push_back(i);
      comps.push_back(ops);
      left &= ~comp;
    }
    bool ok = (parallel || std::popcount(e) == 1) && static_cast<int>(comps.size()) <= lanes;
    for (auto& c : comps) ok = ok && static_cast<int>(c.size()) <= o.r;
    ok = ok || (parallel && e == sinks && std::popcount(e) > lanes);
    if (ok) {
      Result<StageChoice> packed = pack_stage(comps, lanes, o.threads, op_cost);
      EXPECT_TRUE(packed.ok());
      best = cost(*packed) * (packed->groups.size() > 1 ? 1 + o.min_gain : 1.0);
    }
    if (merge && std::popcount(e) >= 2 && std::popcount(e) <= o.s && static_cast<int>(comps.size()) == std::popcount(e)) {
      std::vector<int> ops;
      for (auto& c : comps) ops.push_back(c[0]);
      if (can_merge(ops)) best = std::min(best, cost(StageChoice{{ops}, {o.threads}, true}) * (1 + o.min_gain));
    }
    return best;
  };
  std::function<double(uint64_t)> solve = [&](uint64_t s) -> double {
    if (s == 0) return 0;
    double best = INFINITY;
    for (uint64_t e = s; e; e = (e - 1) & s) {
      bool ending = true;
      for (int i = 0; i < n && ending; ++i)
        if ((e >> i & 1) && (succ[i] & s & ~e)) ending = false;
      if (!ending) continue;
      const double c = stage(e, s);
      if (std::isfinite(c)) best = std::min(best, c + solve(s & ~e));
    }
    return best;
  };
  return solve((uint64_t{1} << n) - 1);
}

// Operators of even index "share an input" and can merge with each other.
bool even_ops_merge(const std::vector<int>& ops) {
  return std::all_of(ops.begin(), ops.end(), [](int v) { return v % 2 == 0; });
}

TEST(IosSearch, EqualsBruteForceOnSmallGraphs) {
  std::mt19937 rng(7);
  int compared = 0;
  int64_t pruned = 0;
  for (int trial = 0; trial < 60 && compared < 24; ++trial) {
    const int n = 6 + trial % 4;
    OpGraph g = random_graph(n, rng);
    if (partition_blocks(g, 64).size() != 1) continue;  // brute force sees no blocks
    SyntheticCost cost;
    std::uniform_real_distribution<double> ms(1e-4, 1e-3);
    for (int i = 0; i < n; ++i) cost.op_s.push_back(ms(rng));
    for (Strategy strategy : {Strategy::kParallel, Strategy::kMerge, Strategy::kBoth}) {
      for (int threads : {2, 3, 4}) {
        SearchOptions o;
        o.strategy = strategy;
        o.threads = threads;
        // Also merges of more operators than a concurrent stage holds (r x lanes < s).
        o.r = threads == 4 ? 1 : 2;
        o.s = threads == 4 ? 5 : 3;
        o.min_gain = trial % 2 ? 0.0 : 0.08;  // 8%: more than contention costs a group, less than a merge gains
        auto op_cost = [&](int v, int t) -> Result<double> { return cost.op(v, t); };
        Result<SearchResult> r = schedule_graph(g, o, [&](const StageChoice& c) -> Result<double> { return cost(c); },
                                                even_ops_merge, op_cost);
        ASSERT_TRUE(r.ok()) << r.status().message();
        double sum = 0, charged = 0;
        for (const StageChoice& c : r->stages) {
          sum += cost(c);
          charged += cost(c) * (c.merged || c.groups.size() > 1 ? 1 + o.min_gain : 1.0);
        }
        EXPECT_NEAR(charged, brute_force(g, o, cost, even_ops_merge), 1e-12)
            << "trial " << trial << " " << strategy_name(strategy) << " threads " << threads;
        EXPECT_NEAR(sum, r->cost_s, 1e-12);  // the reported cost is the stages' cost, not what was charged
        // With a true lower bound (the longest group alone, no contention or barrier), branch and
        // bound finds the same cost and costs fewer stages.
        Result<SearchResult> bounded = schedule_graph(
            g, o, [&](const StageChoice& c) -> Result<double> { return cost(c); }, even_ops_merge, op_cost,
            [&](const StageChoice& c) -> Result<double> {
              double longest = 0;
              for (size_t k = 0; k < c.groups.size(); ++k) {
                double s = 0;
                for (int v : c.groups[k]) s += cost.op(v, c.threads[k]);
                longest = std::max(longest, s);
              }
              return longest;
            });
        ASSERT_TRUE(bounded.ok());
        EXPECT_NEAR(bounded->cost_s, r->cost_s, 1e-12);
        EXPECT_LE(bounded->stages_costed, r->stages_costed);
        pruned += bounded->stages_pruned;
      }
    }
    ++compared;
  }
  EXPECT_GE(compared, 10);
  EXPECT_GT(pruned, 0);
}

TEST(IosSearch, AStageOfSeveralGroupsMustGainMinGain) {
  // Two independent operators: together they take 3% less than one after the other.
  Result<OpGraph> g = OpGraph::from_edges(2, {});
  ASSERT_TRUE(g.ok());
  auto cost = [](const StageChoice& c) -> Result<double> { return c.groups.size() == 2 ? 0.97e-3 : 0.5e-3; };
  SearchOptions o;
  o.strategy = Strategy::kParallel;
  o.threads = 2;
  for (double min_gain : {0.0, 0.02, 0.05}) {
    o.min_gain = min_gain;
    Result<SearchResult> r = schedule_graph(*g, o, cost);
    ASSERT_TRUE(r.ok()) << r.status().message();
    const size_t stages = min_gain < 0.03 ? 1 : 2;
    EXPECT_EQ(r->stages.size(), stages) << "min_gain " << min_gain;
    EXPECT_NEAR(r->cost_s, stages == 1 ? 0.97e-3 : 1e-3, 1e-15);
  }
  o.min_gain = 1;
  EXPECT_FALSE(schedule_graph(*g, o, cost).ok());
}

TEST(IosSearch, PackStagePutsUnitsLongestFirstOnTheLaneWhereTheyFinishFirst) {
  // Unit lengths by operator: 0:5 1:3 2:3 3:2 4:2 5:1 (at one thread; half that at two).
  const std::vector<double> len = {5, 3, 3, 2, 2, 1};
  auto op_cost = [&](int v, int t) -> Result<double> { return len[v] / t; };
  Result<StageChoice> c = pack_stage({{0}, {1}, {2}, {3}, {4}, {5}}, 2, 2, op_cost);
  ASSERT_TRUE(c.ok());
  // LPT: 5 -> A; 3 -> B; 3 -> B (6 before 8); 2 -> A (7); 2 -> B (8 before 9); 1 -> A: both end at 8.
  EXPECT_EQ(c->threads, (std::vector<int>{1, 1}));
  EXPECT_EQ(c->groups, (std::vector<std::vector<int>>{{0, 3, 5}, {1, 2, 4}}));
  // At most `lanes` units: one group each, the threads split among them.
  c = pack_stage({{2, 4}, {3}}, 2, 4, op_cost);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->groups, (std::vector<std::vector<int>>{{2, 4}, {3}}));
  EXPECT_EQ(c->threads, (std::vector<int>{2, 2}));
  // Without costs a unit's length is its operator count; a multi-operator unit stays in order.
  c = pack_stage({{0, 1}, {2}, {3}}, 2, 2, {});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->groups, (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
}

TEST(IosSearch, AStageMayHoldMoreComponentsThanThreadsOnSharedLanes) {
  // Six independent operators of equal cost on two threads: one stage of two lanes of three
  // operators each pays one barrier, where stages of at most two groups would pay three.
  Result<OpGraph> g = OpGraph::from_edges(6, {});
  ASSERT_TRUE(g.ok());
  SyntheticCost cost;
  cost.op_s.assign(6, 1e-4);
  SearchOptions o;
  o.strategy = Strategy::kParallel;
  o.threads = 2;
  auto op_cost = [&](int v, int t) -> Result<double> { return cost.op(v, t); };
  Result<SearchResult> r =
      schedule_graph(*g, o, [&](const StageChoice& c) -> Result<double> { return cost(c); }, {}, op_cost);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->stages.size(), 1u);
  EXPECT_EQ(r->stages[0].threads, (std::vector<int>{1, 1}));
  EXPECT_EQ(r->stages[0].groups[0].size(), 3u);
  EXPECT_EQ(r->stages[0].groups[1].size(), 3u);
  // Four independent pairs a -> b with r = 1: enumerated endings hold at most two operators, but
  // each state also tries all its sinks at once: the four b's, then the four a's.
  Result<OpGraph> pairs = OpGraph::from_edges(8, {{0, 1}, {2, 3}, {4, 5}, {6, 7}});
  ASSERT_TRUE(pairs.ok());
  cost.op_s.assign(8, 1e-4);
  o.r = 1;
  r = schedule_graph(*pairs, o, [&](const StageChoice& c) -> Result<double> { return cost(c); }, {}, op_cost);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->stages.size(), 2u);
  EXPECT_EQ(r->stages[0].groups, (std::vector<std::vector<int>>{{0, 4}, {2, 6}}));
  EXPECT_EQ(r->stages[1].groups, (std::vector<std::vector<int>>{{1, 5}, {3, 7}}));
}

TEST(IosSearch, ATimeBudgetKeepsTheDeepestSearchThatFinished) {
  // Eight independent pairs a -> b on eight threads: stages of up to eight groups. With a budget
  // the search deepens over 2, 4, 8 groups per stage; a budget spent before the second level keeps
  // the 2-group search's schedule, a large one ends where the search without a budget does.
  std::vector<std::pair<int, int>> edges;
  for (int v = 0; v < 16; v += 2) edges.push_back({v, v + 1});
  Result<OpGraph> g = OpGraph::from_edges(16, edges);
  ASSERT_TRUE(g.ok());
  SyntheticCost cost;
  for (int v = 0; v < 16; ++v) cost.op_s.push_back(1e-4 * (1 + v % 5));
  auto fn = [&](const StageChoice& c) -> Result<double> { return cost(c); };
  auto op_cost = [&](int v, int t) -> Result<double> { return cost.op(v, t); };
  SearchOptions o;
  o.strategy = Strategy::kParallel;
  o.threads = 8;
  o.s = 8;
  auto search = [&](int s, double budget) {
    SearchOptions x = o;
    x.s = s;
    x.time_budget_s = budget;
    Result<SearchResult> r = schedule_graph(*g, x, fn, {}, op_cost);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : SearchResult{};
  };
  const SearchResult unlimited = search(8, 0), two = search(2, 0);
  EXPECT_EQ(unlimited.lanes, 8);
  EXPECT_FALSE(unlimited.budget_cut);
  EXPECT_EQ(two.lanes, 2);
  EXPECT_LT(unlimited.cost_s, two.cost_s);  // more groups per stage pay off here

  // Costing a stage of more than two groups takes longer than the budget: the first level finishes,
  // the second runs out at its next stage, and the 2-group search's schedule stays.
  auto slow = [&](const StageChoice& c) -> Result<double> {
    if (c.groups.size() > 2) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return cost(c);
  };
  SearchOptions x = o;
  x.time_budget_s = 0.2;
  Result<SearchResult> cut = schedule_graph(*g, x, slow, {}, op_cost);
  ASSERT_TRUE(cut.ok()) << cut.status().message();
  EXPECT_TRUE(cut->budget_cut);
  EXPECT_EQ(cut->lanes, 2);
  EXPECT_EQ(cut->blocks_unsearched, 0);
  EXPECT_DOUBLE_EQ(cut->cost_s, two.cost_s);
  ASSERT_EQ(cut->stages.size(), two.stages.size());
  for (size_t i = 0; i < two.stages.size(); ++i) EXPECT_EQ(cut->stages[i].groups, two.stages[i].groups);

  const SearchResult ample = search(8, 1e6);
  EXPECT_FALSE(ample.budget_cut);
  EXPECT_EQ(ample.lanes, 8);
  EXPECT_DOUBLE_EQ(ample.cost_s, unlimited.cost_s);

  for (double bad : {-1.0, std::nan(""), double{INFINITY}}) {
    SearchOptions x = o;
    x.time_budget_s = bad;
    EXPECT_EQ(schedule_graph(*g, x, fn, {}, op_cost).status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

TEST(IosSearch, ABlockWhoseFirstSearchRunsOutOfItsShareKeepsItsOperatorsOwnStages) {
  // Four independent pairs joined by one operator every path crosses (8), then four more pairs: two
  // blocks, 0-8 and 9-16. Costing any concurrent stage of the first block takes longer than its
  // share of the budget; the second block is still searched in what is left.
  std::vector<std::pair<int, int>> edges;
  for (int v = 0; v < 8; v += 2) edges.push_back({v, v + 1}), edges.push_back({v + 1, 8});
  for (int v = 9; v < 17; v += 2) edges.push_back({8, v}), edges.push_back({v, v + 1});
  Result<OpGraph> g = OpGraph::from_edges(17, edges);
  ASSERT_TRUE(g.ok());
  SyntheticCost cost;
  for (int v = 0; v < 17; ++v) cost.op_s.push_back(1e-4 * (1 + v % 3));
  auto op_cost = [&](int v, int t) -> Result<double> { return cost.op(v, t); };
  auto slow = [&](const StageChoice& c) -> Result<double> {
    if (c.groups.size() > 1 && c.groups[0][0] < 8) std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    return cost(c);
  };
  SearchOptions o;
  o.strategy = Strategy::kParallel;
  o.threads = 2;
  o.time_budget_s = 1.5;  // the first block's share: 1.5 s x 9 / 17
  Result<SearchResult> r = schedule_graph(*g, o, slow, {}, op_cost);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->budget_cut);
  EXPECT_EQ(r->blocks, 2);
  EXPECT_EQ(r->blocks_unsearched, 1);
  EXPECT_EQ(r->lanes, 1);
  double sequential = 0;
  for (int v = 0; v <= 8; ++v) sequential += cost(StageChoice{{{v}}, {2}, false});
  double first = 0, rest = 0;
  bool concurrent_later = false;
  std::vector<int> seen(17, 0);
  for (const StageChoice& c : r->stages) {
    for (const std::vector<int>& grp : c.groups)
      for (int v : grp) ++seen[v];
    if (c.groups[0][0] <= 8) {
      ASSERT_EQ(c.groups.size(), 1u);  // the first block: one operator per stage on both threads
      EXPECT_EQ(c.groups[0].size(), 1u);
      EXPECT_EQ(c.threads[0], 2);
      first += c.cost_s;
    } else {
      concurrent_later |= c.groups.size() > 1;
      rest += c.cost_s;
    }
  }
  EXPECT_EQ(seen, std::vector<int>(17, 1));
  EXPECT_NEAR(first, sequential, 1e-12);
  EXPECT_TRUE(concurrent_later);  // the second block was searched
  EXPECT_NEAR(r->cost_s, first + rest, 1e-12);

  // A budget spent before anything is searched: every block keeps its operators' own stages.
  o.time_budget_s = 1e-9;
  r = schedule_graph(*g, o, [&](const StageChoice& c) -> Result<double> { return cost(c); }, {}, op_cost);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->blocks_unsearched, r->blocks);
  ASSERT_EQ(r->stages.size(), 17u);
  for (int v = 0; v < 17; ++v) EXPECT_EQ(r->stages[v].groups, (std::vector<std::vector<int>>{{v}}));
}

TEST(IosSearch, EverySchedulesCoversEachOperatorOnceInDependencyOrder) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 12; ++trial) {
    OpGraph g = random_graph(20 + trial, rng);
    SyntheticCost cost;
    for (int i = 0; i < g.size(); ++i) cost.op_s.push_back(1e-4 * (1 + i % 5));
    for (Strategy strategy :
         {Strategy::kSequential, Strategy::kGreedy, Strategy::kParallel, Strategy::kMerge, Strategy::kBoth}) {
      SearchOptions o;
      o.strategy = strategy;
      o.threads = 2;
      o.max_block = 12;  // forces cuts inside blocks too
      Result<SearchResult> r = schedule_graph(
          g, o, [&](const StageChoice& c) -> Result<double> { return cost(c); }, even_ops_merge,
          [&](int v, int t) -> Result<double> { return cost.op(v, t); });
      ASSERT_TRUE(r.ok()) << r.status().message();
      runtime::StageSchedule s = make_schedule(g, *r, o.threads);
      Result<MergedOps> ops = merged_ops(g, s);
      ASSERT_TRUE(ops.ok()) << ops.status().message();
      Status v = runtime::validate_schedule(s, ops->names, ops->preds, o.threads);
      EXPECT_TRUE(v.ok()) << strategy_name(strategy) << ": " << v.message();
    }
  }
}

TEST(IosSearch, ParallelBeatsSequentialOnIndependentBranches) {
  // Two chains of two from one source into one sink: the chains can overlap.
  Result<OpGraph> g = OpGraph::from_edges(6, {{0, 1}, {1, 2}, {0, 3}, {3, 4}, {2, 5}, {4, 5}});
  ASSERT_TRUE(g.ok());
  SyntheticCost cost{{1e-4, 1e-3, 1e-3, 1e-3, 1e-3, 1e-4}};
  auto fn = [&](const StageChoice& c) -> Result<double> { return cost(c); };
  SearchOptions o;
  o.threads = 2;
  o.strategy = Strategy::kSequential;
  Result<SearchResult> seq = schedule_graph(*g, o, fn);
  o.strategy = Strategy::kParallel;
  Result<SearchResult> par = schedule_graph(*g, o, fn);
  ASSERT_TRUE(seq.ok() && par.ok());
  EXPECT_LT(par->cost_s, 0.9 * seq->cost_s);
  // The best stage runs the two chains at once, one thread each.
  bool concurrent = false;
  for (const StageChoice& c : par->stages) concurrent |= c.groups.size() == 2 && c.threads == std::vector<int>{1, 1};
  EXPECT_TRUE(concurrent);
}

TEST(IosSearch, SingleStagesComeInGraphOrderWhereDependenciesAllow) {
  auto one = [](std::vector<int> ops, double cost_s) {
    StageChoice c{{ops}, {2}, false};
    c.cost_s = cost_s;
    return c;
  };
  auto groups = [](const std::vector<StageChoice>& stages) {
    std::vector<std::vector<int>> out;
    for (const StageChoice& c : stages) out.push_back(c.groups.size() == 1 ? c.groups[0] : std::vector<int>{-1});
    return out;
  };
  auto costs = [](const std::vector<StageChoice>& stages) {
    std::vector<double> out;
    for (const StageChoice& c : stages) out.push_back(c.cost_s);
    return out;
  };
  {
    // 0 -> {1, 2} -> 3 -> {4, 6}; 4 -> 5. A search's tie order: 2 before 1, 6 before the chain 4 > 5.
    Result<OpGraph> g = OpGraph::from_edges(7, {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 4}, {3, 6}, {4, 5}});
    ASSERT_TRUE(g.ok());
    std::vector<StageChoice> stages = {one({0}, 1), one({2}, 2), one({1}, 3), one({3}, 4), one({6}, 5), one({4, 5}, 6)};
    order_single_stages(*g, stages);
    EXPECT_EQ(groups(stages), (std::vector<std::vector<int>>{{0}, {1}, {2}, {3}, {4, 5}, {6}}));
    EXPECT_EQ(costs(stages), (std::vector<double>{1, 3, 2, 4, 6, 5}));  // stages move whole, with their costs
  }
  // 0 -> {1, 2} -> 3 -> {4, 5}; 4 -> 6.
  Result<OpGraph> g = OpGraph::from_edges(7, {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 4}, {3, 5}, {4, 6}});
  ASSERT_TRUE(g.ok());
  {
    // The chain 4 > 6 runs across 5: one stage per operator, the chain's cost shared by op_cost.
    std::vector<StageChoice> stages = {one({0}, 1), one({1}, 2), one({2}, 3), one({3}, 4), one({5}, 5), one({4, 6}, 6)};
    order_single_stages(*g, stages, [](int op, int) -> Result<double> { return op == 4 ? 2.0 : 1.0; });
    EXPECT_EQ(groups(stages), (std::vector<std::vector<int>>{{0}, {1}, {2}, {3}, {4}, {5}, {6}}));
    EXPECT_EQ(costs(stages), (std::vector<double>{1, 2, 3, 4, 4, 5, 2}));
  }
  {
    // A concurrent stage stays where it is, and nothing crosses it; after it, 5 depends on 3.
    std::vector<StageChoice> stages = {
        one({0}, 1), StageChoice{{{1}, {2}}, {1, 1}, false}, one({5}, 5), one({3}, 4), one({4}, 6), one({6}, 7)};
    order_single_stages(*g, stages);
    EXPECT_EQ(groups(stages), (std::vector<std::vector<int>>{{0}, {-1}, {3}, {4}, {5}, {6}}));
  }
}

TEST(IosSearch, ASearchThatOverlapsNothingGivesTheSequentialSchedule) {
  // Independent branches that never gain from running together: every search's schedule, in
  // order_single_stages' order, must be the sequential one, operator for operator, not an order
  // its ties happened to fall in.
  std::mt19937 rng(5);
  for (int trial = 0; trial < 6; ++trial) {
    OpGraph g = random_graph(14, rng);
    auto cost = [](const StageChoice& c) -> Result<double> {
      double sum = 0;
      for (const std::vector<int>& grp : c.groups) sum += 1e-4 * static_cast<double>(grp.size());
      return c.groups.size() > 1 || c.merged ? 2 * sum : sum;
    };
    for (Strategy strategy : {Strategy::kParallel, Strategy::kBoth, Strategy::kMerge}) {
      SearchOptions o;
      o.strategy = strategy;
      o.threads = 2;
      Result<SearchResult> r = schedule_graph(g, o, cost, even_ops_merge);
      ASSERT_TRUE(r.ok()) << r.status().message();
      order_single_stages(g, r->stages);  // as Scheduler::plan does
      std::vector<int> order;
      for (const StageChoice& c : r->stages) {
        ASSERT_EQ(c.groups.size(), 1u);
        ASSERT_FALSE(c.merged);
        order.insert(order.end(), c.groups[0].begin(), c.groups[0].end());
      }
      std::vector<int> sequential(g.size());
      std::iota(sequential.begin(), sequential.end(), 0);
      EXPECT_EQ(order, sequential) << strategy_name(strategy) << ", trial " << trial;
    }
  }
}

TEST(IosSearch, BlocksCutAtOperatorsEveryPathCrosses) {
  // 0 -> {1, 2} -> 3 -> {4, 5} -> 6: cuts at 0, 3 and 6.
  Result<OpGraph> g = OpGraph::from_edges(7, {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 4}, {3, 5}, {4, 6}, {5, 6}});
  ASSERT_TRUE(g.ok());
  std::vector<std::vector<int>> blocks = partition_blocks(*g, 64);
  EXPECT_EQ(blocks, (std::vector<std::vector<int>>{{0}, {1, 2, 3}, {4, 5, 6}}));
  EXPECT_EQ(partition_blocks(*g, 2).size(), 5u);  // the 3-op blocks are cut again
}

TEST(IosSearch, LongRangesAreCutIntoFewBlocksWhereFewEdgesCross) {
  // Two interleaved chains (even and odd operators) with no cut between them: one edge of each
  // crosses any boundary, and from operator 10 on a third edge (v -> v + 3) crosses too. Cutting at
  // the fewest crossing edges one cut at a time peels a small block off the front; the whole range
  // needs only ceil(100 / 32) = 4 blocks, and the first may hold the cheap boundaries without
  // paying a block for them.
  const int n = 100;
  std::vector<std::pair<int, int>> edges;
  for (int v = 0; v + 2 < n; ++v) edges.push_back({v, v + 2});
  for (int v = 10; v + 3 < n; ++v) edges.push_back({v, v + 3});
  Result<OpGraph> g = OpGraph::from_edges(n, edges);
  ASSERT_TRUE(g.ok());
  const std::vector<std::vector<int>> blocks = partition_blocks(*g, 32);
  EXPECT_EQ(blocks.size(), 4u);
  std::vector<int> order;
  for (const std::vector<int>& b : blocks) {
    EXPECT_LE(b.size(), 32u);
    order.insert(order.end(), b.begin(), b.end());
  }
  std::vector<int> all(n);
  std::iota(all.begin(), all.end(), 0);
  EXPECT_EQ(order, all);
  // Of the 4-block splits, one whose first cut lies where only two edges cross (after at most 10).
  EXPECT_LE(blocks[0].size(), 10u);
}

TEST(IosSearch, LongRegionsAreSearchedOverTheirChains) {
  // 0 -> three chains of three (1-2-3, 4-5-6, 7-8-9) -> 10: cuts at 0 and 10, ten operators between.
  Result<OpGraph> g = OpGraph::from_edges(11, {{0, 1}, {1, 2}, {2, 3}, {0, 4}, {4, 5}, {5, 6}, {0, 7}, {7, 8}, {8, 9},
                                               {3, 10}, {6, 10}, {9, 10}});
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(contract_long_chains(*g, 64).contracted, 0);  // the region fits a block: operators stay apart
  Contraction c = contract_long_chains(*g, 4);
  EXPECT_EQ(c.contracted, 6);
  EXPECT_EQ(c.members, (std::vector<std::vector<int>>{{0}, {1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {10}}));
  EXPECT_EQ(c.units.preds, (std::vector<std::vector<int>>{{}, {0}, {0}, {0}, {1, 2, 3}}));
  EXPECT_EQ(c.units.names[1], "op1");

  // With blocks of four, the operators' search would cut the chains apart; over the chains, one
  // stage runs all three at once.
  SyntheticCost cost;
  cost.op_s.assign(11, 1e-4);
  SearchOptions o;
  o.strategy = Strategy::kParallel;
  o.threads = 3;
  o.max_block = 4;
  auto run = [&] {
    return schedule_graph(*g, o, [&](const StageChoice& s) -> Result<double> { return cost(s); }, {},
                          [&](int v, int t) -> Result<double> { return cost.op(v, t); });
  };
  Result<SearchResult> r = run();
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->stages.size(), 3u);
  EXPECT_EQ(r->stages[1].groups, (std::vector<std::vector<int>>{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}));
  double sum = 0;
  for (const StageChoice& s : r->stages) sum += cost(s);
  EXPECT_NEAR(sum, r->cost_s, 1e-12);
  o.contract_chains = false;
  r = run();
  ASSERT_TRUE(r.ok());
  EXPECT_GT(r->stages.size(), 3u);
}

TEST(IosSearch, AChainRunsAsItsOperatorsStagesWhereThoseCostLess) {
  // The graph above, searched over its chains: a stage of one chain may cost more than its
  // operators' own stages (here twice their sum, and concurrency never pays), and the search then
  // takes the operators' stages, so it never ends above the sequential schedule's estimate.
  Result<OpGraph> g = OpGraph::from_edges(
      11, {{0, 1}, {1, 2}, {2, 3}, {0, 4}, {4, 5}, {5, 6}, {0, 7}, {7, 8}, {8, 9}, {3, 10}, {6, 10}, {9, 10}});
  ASSERT_TRUE(g.ok());
  SyntheticCost cost;
  for (int i = 0; i < 11; ++i) cost.op_s.push_back(1e-4 * (1 + i % 3));
  auto fn = [&](const StageChoice& c) -> Result<double> {
    if (c.groups.size() > 1) return 1.0;
    return c.groups[0].size() > 1 ? 2 * cost(c) : cost(c);
  };
  SearchOptions o;
  o.strategy = Strategy::kBoth;
  o.threads = 3;
  o.max_block = 4;
  ASSERT_EQ(contract_long_chains(*g, o.max_block).contracted, 6);
  SearchOptions sequential = o;
  sequential.strategy = Strategy::kSequential;
  Result<SearchResult> seq = schedule_graph(*g, sequential, fn);
  ASSERT_TRUE(seq.ok());
  Result<SearchResult> r =
      schedule_graph(*g, o, fn, even_ops_merge, [&](int v, int t) -> Result<double> { return cost.op(v, t); });
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_NEAR(r->cost_s, seq->cost_s, 1e-12);
  ASSERT_EQ(r->stages.size(), 11u);
  EXPECT_EQ(r->chains_split, 3);
  double sum = 0;
  std::vector<int> ops;
  for (const StageChoice& c : r->stages) {
    ASSERT_EQ(c.groups.size(), 1u);
    ASSERT_EQ(c.groups[0].size(), 1u);
    ops.push_back(c.groups[0][0]);
    Result<double> x = fn(c);
    ASSERT_TRUE(x.ok());
    EXPECT_NEAR(c.cost_s, *x, 1e-12);
    sum += c.cost_s;
  }
  std::sort(ops.begin(), ops.end());
  EXPECT_EQ(ops, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  EXPECT_NEAR(sum, r->cost_s, 1e-12);

  // Where a stage of several operators costs less than their own stages (no barriers between them),
  // chains stay whole.
  auto cheaper = [&](const StageChoice& c) -> Result<double> {
    if (c.groups.size() > 1) return 1.0;
    return c.groups[0].size() > 1 ? 0.5 * cost(c) : cost(c);
  };
  r = schedule_graph(*g, o, cheaper, even_ops_merge, [&](int v, int t) -> Result<double> { return cost.op(v, t); });
  ASSERT_TRUE(r.ok());
  EXPECT_LT(r->cost_s, seq->cost_s);
  EXPECT_LE(r->stages.size(), 5u);
  EXPECT_EQ(r->chains_split, 0);
}

TEST(IosSearch, SplitThreadsAndStrategyNames) {
  EXPECT_EQ(split_threads(2, 2), (std::vector<int>{1, 1}));
  EXPECT_EQ(split_threads(3, 8), (std::vector<int>{3, 3, 2}));
  EXPECT_EQ(split_threads(1, 16), (std::vector<int>{16}));
  EXPECT_TRUE(parse_strategy("both").ok());
  EXPECT_FALSE(parse_strategy("fastest").ok());
}

}  // namespace
}  // namespace tensorperf::graphsched
