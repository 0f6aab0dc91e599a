#include "graphsched/ios_search.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <queue>
#include <unordered_map>

#include "base/steady_time.h"

namespace tensorperf::graphsched {

std::string stage_key(const StageChoice& c) {
  std::string k = c.merged ? "m" : "p";
  for (size_t i = 0; i < c.groups.size(); ++i) {
    k += '|';
    k += std::to_string(c.threads[i]);
    k += ':';
    for (int op : c.groups[i]) {
      k += std::to_string(op);
      k += ',';
    }
  }
  return k;
}

std::string_view strategy_name(Strategy s) {
  switch (s) {
    case Strategy::kSequential: return "sequential";
    case Strategy::kGreedy: return "greedy";
    case Strategy::kParallel: return "parallel";
    case Strategy::kMerge: return "merge";
    case Strategy::kBoth: return "both";
  }
  return "?";
}

Result<Strategy> parse_strategy(std::string_view name) {
  for (Strategy s : {Strategy::kSequential, Strategy::kGreedy, Strategy::kParallel, Strategy::kMerge, Strategy::kBoth})
    if (strategy_name(s) == name) return s;
  return Status::InvalidArgument("unknown strategy '" + std::string(name) +
                                 "'; use sequential, greedy, parallel, merge or both");
}

std::vector<int> split_threads(int groups, int threads) {
  std::vector<int> out(groups, threads / std::max(groups, 1));
  for (int i = 0; i < threads % std::max(groups, 1); ++i) ++out[i];
  for (int& t : out) t = std::max(t, 1);
  return out;
}

Result<StageChoice> pack_stage(const std::vector<std::vector<int>>& units, int lanes, int threads,
                               const OpCostFn& op_cost) {
  const int n = static_cast<int>(units.size());
  lanes = std::max(1, std::min({lanes, threads, n}));
  StageChoice c;
  c.threads = split_threads(n <= lanes ? n : lanes, threads);
  if (n <= lanes) {
    c.groups = units;
    return c;
  }
  auto length = [&](const std::vector<int>& unit, int t) -> Result<double> {
    if (!op_cost) return static_cast<double>(unit.size());
    double s = 0;
    for (int v : unit) {
      TP_ASSIGN_OR_RETURN(double x, op_cost(v, t));
      s += x;
    }
    return s;
  };
  std::vector<std::pair<double, int>> order;
  for (int u = 0; u < n; ++u) {
    TP_ASSIGN_OR_RETURN(double x, length(units[u], c.threads.back()));
    order.push_back({-x, u});
  }
  std::stable_sort(order.begin(), order.end());
  c.groups.assign(lanes, {});
  std::vector<double> load(lanes, 0);
  for (const auto& [neg, u] : order) {
    int best = 0;
    double best_end = INFINITY, best_len = 0;
    for (int k = 0; k < lanes; ++k) {
      double len = -neg;
      if (c.threads[k] != c.threads.back()) {
        TP_ASSIGN_OR_RETURN(len, length(units[u], c.threads[k]));
      }
      if (load[k] + len < best_end) best = k, best_end = load[k] + len, best_len = len;
    }
    load[best] += best_len;
    c.groups[best].insert(c.groups[best].end(), units[u].begin(), units[u].end());
  }
  for (auto& grp : c.groups) std::sort(grp.begin(), grp.end());
  return c;
}

namespace {

constexpr int64_t kMaxStates = 2'000'000;

// Costs each distinct stage once.
class CostCache {
 public:
  explicit CostCache(const StageCostFn& fn) : fn_(fn) {}
  Result<double> operator()(const StageChoice& c) {
    const std::string key = stage_key(c);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    TP_ASSIGN_OR_RETURN(double s, fn_(c));
    cache_.emplace(key, s);
    return s;
  }
  int64_t size() const { return static_cast<int64_t>(cache_.size()); }

 private:
  const StageCostFn& fn_;
  std::unordered_map<std::string, double> cache_;
};

// The DP over one block (at most 64 operators: a state is a bit mask of local indices).
class BlockSearch {
 public:
  // `lanes`: groups a concurrent stage may hold (at most min(s, threads)); `deadline`:
  // steady_seconds() past which run() gives up with a Timeout (0: none).
  BlockSearch(const OpGraph& g, const std::vector<int>& ops, const SearchOptions& o, CostCache& cost,
              const CanMergeFn& can_merge, const OpCostFn& op_cost, const StageBoundFn& bound, int lanes,
              double deadline)
      : g_(g), ops_(ops), o_(o), cost_(cost), can_merge_(can_merge), op_cost_(op_cost), bound_(bound),
        deadline_(deadline) {
    const int n = static_cast<int>(ops.size());
    for (int i = 0; i < n; ++i) local_[ops[i]] = i;
    pred_.assign(n, 0);
    succ_.assign(n, 0);
    for (int i = 0; i < n; ++i)
      for (int v : g.succs[ops[i]]) {
        auto it = local_.find(v);
        if (it == local_.end()) continue;
        succ_[i] |= uint64_t{1} << it->second;
        pred_[it->second] |= uint64_t{1} << i;
      }
    parallel_ = o.strategy == Strategy::kParallel || o.strategy == Strategy::kBoth;
    merge_ = (o.strategy == Strategy::kMerge || o.strategy == Strategy::kBoth) && can_merge_;
    lanes_ = std::max(1, std::min({lanes, o.s, o.threads}));
    cap_ = 1;
    if (parallel_) cap_ = std::max(cap_, o.r * lanes_);
    if (merge_) cap_ = std::max(cap_, o.s);
  }

  int64_t pruned() const { return pruned_; }

  Status run(std::vector<StageChoice>& stages, double& total, int64_t& states) {
    const uint64_t all = ops_.size() == 64 ? ~uint64_t{0} : (uint64_t{1} << ops_.size()) - 1;
    TP_RETURN_IF_ERROR(solve(all).status());
    states += static_cast<int64_t>(memo_.size());
    std::vector<StageChoice> mine;
    for (uint64_t s = all; s != 0;) {
      const Entry& e = memo_.at(s);
      mine.push_back(e.stage);
      total += e.stage.cost_s;  // what it costs; the memo holds what the search charged (min_gain)
      s &= ~e.ending;
    }
    stages.insert(stages.end(), mine.rbegin(), mine.rend());
    return Status::Ok();
  }

 private:
  struct Entry {
    double cost = 0;
    uint64_t ending = 0;
    StageChoice stage;
  };

  // The weakly connected components of `e` (local masks), in order of their first operator.
  std::vector<uint64_t> components(uint64_t e) const {
    std::vector<uint64_t> out;
    uint64_t left = e;
    while (left) {
      uint64_t comp = left & (~left + 1), frontier = comp;
      while (frontier) {
        const int i = std::countr_zero(frontier);
        frontier &= frontier - 1;
        const uint64_t next = (pred_[i] | succ_[i]) & e & ~comp;
        comp |= next;
        frontier |= next;
      }
      out.push_back(comp);
      left &= ~comp;
    }
    return out;
  }

  std::vector<int> global(uint64_t mask) const {
    std::vector<int> out;
    for (; mask; mask &= mask - 1) out.push_back(ops_[std::countr_zero(mask)]);
    return out;
  }

  // How ending `e` may run, decided before anything is costed: concurrently (its components, when
  // each holds at most r operators and there are at most lanes of them; `wide`: a state's sinks,
  // packed onto the lanes) and/or merged (an antichain the caller can merge).
  struct Ways {
    std::vector<uint64_t> groups;  // empty: not concurrently
    std::vector<int> threads;      // each group's
    bool merged = false;
    bool any() const { return !groups.empty() || merged; }
  };
  Result<Ways> ways(uint64_t e, bool wide) const {
    Ways w;
    const int size = std::popcount(e);
    if (parallel_ || size == 1) {
      std::vector<uint64_t> comps = components(e);
      bool ok = static_cast<int>(comps.size()) <= lanes_;
      for (uint64_t c : comps) ok = ok && std::popcount(c) <= o_.r;
      if (ok) {
        w.threads = split_threads(static_cast<int>(comps.size()), o_.threads);
        w.groups = std::move(comps);
      } else if (wide) {
        std::vector<std::vector<int>> units;
        for (uint64_t c : comps) units.push_back(global(c));
        TP_ASSIGN_OR_RETURN(StageChoice packed, pack_stage(units, lanes_, o_.threads, op_cost_));
        for (const std::vector<int>& grp : packed.groups) {
          uint64_t m = 0;
          for (int v : grp) m |= uint64_t{1} << local_.at(v);
          w.groups.push_back(m);
        }
        w.threads = std::move(packed.threads);
      }
    }
    if (merge_ && !wide && size >= 2 && size <= o_.s) {
      bool antichain = true;
      for (uint64_t m = e; m && antichain; m &= m - 1) antichain = (succ_[std::countr_zero(m)] & e) == 0;
      w.merged = antichain && can_merge_(global(e));
    }
    return w;
  }

  // What the search knows of an ending, kept once per block (the same ending recurs in many
  // states): its ways, and its stage's bound and costs once asked for (NaN until then).
  struct Ending {
    Ways ways;
    double bound = NAN, parallel = NAN, merged = NAN;
  };
  Result<Ending*> ending(uint64_t e, bool wide) {
    auto& endings = wide ? wide_endings_ : endings_;
    auto it = endings.find(e);
    if (it == endings.end()) {
      TP_ASSIGN_OR_RETURN(Ways w, ways(e, wide));
      it = endings.emplace(e, Ending{std::move(w)}).first;
    }
    return &it->second;  // pointers into an unordered_map survive its rehashing
  }

  StageChoice make_stage(uint64_t e, const Ways& w, bool merged) const {
    StageChoice c;
    if (merged) {
      c.groups = {global(e)};
      c.threads = {o_.threads};
      c.merged = true;
    } else {
      for (uint64_t m : w.groups) c.groups.push_back(global(m));
      c.threads = w.threads;
    }
    return c;
  }

  // The best way ending `e` offers to run as one stage that costs less than `limit`: its cost and
  // whether it is the merged way (best stays infinite when there is none).
  Status best_stage(uint64_t e, Ending& x, double limit, double& best, bool& merged) {
    best = INFINITY;
    merged = false;
    if (!x.ways.groups.empty()) {
      bool hopeless = false;
      if (bound_ && std::isfinite(limit)) {
        if (std::isnan(x.bound)) {
          TP_ASSIGN_OR_RETURN(x.bound, bound_(make_stage(e, x.ways, false)));
        }
        hopeless = x.bound >= limit;
        pruned_ += hopeless;
      }
      if (!hopeless) {
        if (std::isnan(x.parallel)) {
          TP_RETURN_IF_ERROR(check_deadline());
          TP_ASSIGN_OR_RETURN(x.parallel, cost_(make_stage(e, x.ways, false)));
        }
        best = x.parallel;
      }
    }
    if (x.ways.merged) {
      if (std::isnan(x.merged)) {
        TP_RETURN_IF_ERROR(check_deadline());
        TP_ASSIGN_OR_RETURN(x.merged, cost_(make_stage(e, x.ways, true)));
      }
      if (x.merged < best) best = x.merged, merged = true;
    }
    return Status::Ok();
  }

  // Before a stage is costed (a measured stage takes milliseconds): a budget bounds the timing too.
  Status check_deadline() const {
    if (deadline_ > 0 && steady_seconds() > deadline_)
      return Status::Timeout("the schedule search ran out of its time budget");
    return Status::Ok();
  }

  Result<double> solve(uint64_t s) {
    if (s == 0) return 0.0;
    if ((calls_++ & 1023) == 0) TP_RETURN_IF_ERROR(check_deadline());  // the first call too
    auto it = memo_.find(s);
    if (it != memo_.end()) return it->second.cost;
    if (static_cast<int64_t>(memo_.size()) >= kMaxStates)
      return Status::Unsupported("the schedule search passed " + std::to_string(kMaxStates) +
                                 " states in one block; use a smaller --r or --s");
    // Endings of s: its subsets that hold every successor in s of each member, of at most cap_
    // operators. Each is enumerated once by deciding on the lowest *eligible* operator (all its
    // successors in s already in the ending): in, or out for good; taking one may make its
    // predecessors eligible. (The tree has two nodes per ending; walking s's operators one by one
    // instead spent most of a search on operators that could not join.)
    uint64_t sinks = 0;
    for (uint64_t m = s; m; m &= m - 1) {
      const int i = std::countr_zero(m);
      if ((succ_[i] & s) == 0) sinks |= uint64_t{1} << i;
    }
    Entry best;
    best.cost = INFINITY;
    bool best_merged = false, best_wide = false;
    double best_stage_s = 0;
    Status failed = Status::Ok();
    // Ending e as s's last stage: the best of its ways, against the best ending so far.
    auto consider = [&](uint64_t e, bool wide) {
      Result<Ending*> xr = ending(e, wide);
      if (!xr.ok()) {
        failed = xr.status();
        return;
      }
      Ending& x = **xr;
      if (!x.ways.any()) return;
      Result<double> rest = solve(s & ~e);
      if (!rest.ok()) {
        failed = rest.status();
        return;
      }
      double stage_s;
      bool merged;
      if (Status st = best_stage(e, x, best.cost - *rest, stage_s, merged); !st.ok()) {
        failed = st;
        return;
      }
      if (!std::isfinite(stage_s)) return;
      const bool several = merged || x.ways.groups.size() > 1;
      const double charged = several ? stage_s * (1 + o_.min_gain) : stage_s;
      if (*rest + charged < best.cost)
        best = Entry{*rest + charged, e, {}}, best_merged = merged, best_wide = wide, best_stage_s = stage_s;
    };
    // Past what a concurrent stage holds, only merges remain, and they are antichains: endings of
    // s's sinks alone (one operator with a successor in s brings that successor in).
    const int concurrent_cap = parallel_ ? o_.r * lanes_ : 1;
    std::function<void(uint64_t, uint64_t, int)> visit = [&](uint64_t e, uint64_t eligible, int size) {
      if (!failed.ok()) return;
      if (size >= concurrent_cap && size < cap_) {
        if ((e & ~sinks) == 0) {
          eligible &= sinks;
        } else {
          if (size > concurrent_cap) return;
          eligible = 0;  // e itself may still run concurrently; nothing larger can
        }
      }
      if (eligible == 0 || size == cap_) {
        if (e != 0) consider(e, false);
        return;
      }
      const int i = std::countr_zero(eligible);
      const uint64_t bit = uint64_t{1} << i;
      const uint64_t with = e | bit;
      uint64_t next = eligible & ~bit;
      for (uint64_t m = pred_[i] & s; m; m &= m - 1) {
        const int p = std::countr_zero(m);
        if ((succ_[p] & s & ~with) == 0) next |= uint64_t{1} << p;
      }
      // Small endings first, as single operators give the bound a limit early.
      visit(e, eligible & ~bit, size);  // i stays for an earlier stage
      visit(with, next, size + 1);      // i ends the schedule of s
    };
    visit(0, sinks, 0);
    // Greedy's kind of stage, from the end: every operator that can end s, at once, packed onto
    // the lanes.
    if (parallel_ && failed.ok() && std::popcount(sinks) > lanes_) consider(sinks, true);
    TP_RETURN_IF_ERROR(failed);
    if (!std::isfinite(best.cost)) return Status::Internal("no stage can end this part of the schedule");
    best.stage = make_stage(best.ending, (best_wide ? wide_endings_ : endings_).at(best.ending).ways, best_merged);
    best.stage.cost_s = best_stage_s;
    const double c = best.cost;
    memo_.emplace(s, std::move(best));
    return c;
  }

  const OpGraph& g_;
  const std::vector<int>& ops_;
  const SearchOptions& o_;
  CostCache& cost_;
  const CanMergeFn& can_merge_;
  const OpCostFn& op_cost_;
  const StageBoundFn& bound_;
  const double deadline_;
  uint64_t calls_ = 0;
  std::map<int, int> local_;  // global operator index -> bit
  int64_t pruned_ = 0;
  std::vector<uint64_t> pred_, succ_;
  bool parallel_ = false, merge_ = false;
  int lanes_ = 1, cap_ = 1;
  std::unordered_map<uint64_t, Entry> memo_;
  std::unordered_map<uint64_t, Ending> endings_, wide_endings_;  // enumerated; states' sinks
};

Status greedy(const OpGraph& g, const SearchOptions& o, CostCache& cost, const OpCostFn& op_cost,
              std::vector<StageChoice>& stages, double& total) {
  std::vector<bool> done(g.size(), false);
  int left = g.size();
  while (left > 0) {
    std::vector<int> ready;
    for (int v = 0; v < g.size(); ++v)
      if (!done[v] && std::all_of(g.preds[v].begin(), g.preds[v].end(), [&](int u) { return done[u]; }))
        ready.push_back(v);
    if (ready.empty()) return Status::Internal("the operator graph has a cycle");
    std::vector<std::vector<int>> units;
    for (int v : ready) units.push_back({v});
    TP_ASSIGN_OR_RETURN(StageChoice c, pack_stage(units, std::min(o.s, o.threads), o.threads, op_cost));
    TP_ASSIGN_OR_RETURN(double s, cost(c));
    c.cost_s = s;
    total += s;
    for (int v : ready) done[v] = true;
    left -= static_cast<int>(ready.size());
    stages.push_back(std::move(c));
  }
  return Status::Ok();
}

}  // namespace

Result<SearchResult> schedule_graph(const OpGraph& g, const SearchOptions& options, const StageCostFn& cost,
                                    const CanMergeFn& can_merge, const OpCostFn& uncached_op_cost,
                                    const StageBoundFn& bound) {
  if (options.r < 1 || options.s < 1) return Status::InvalidArgument("r and s must be at least 1");
  if (options.threads < 1) return Status::InvalidArgument("threads must be at least 1");
  if (!(options.time_budget_s >= 0 && std::isfinite(options.time_budget_s)))
    return Status::InvalidArgument("the search's time budget must be a finite number of seconds >= 0");
  if (!(options.min_gain >= 0 && options.min_gain < 1))
    return Status::InvalidArgument("min_gain must be in [0, 1)");
  const double t0 = steady_seconds();
  // Packing asks for operators' costs once per candidate stage: each is asked of the caller once.
  std::unordered_map<int64_t, double> op_costs;
  OpCostFn op_cost;
  if (uncached_op_cost)
    op_cost = [&](int op, int threads) -> Result<double> {
      const int64_t key = int64_t{op} << 20 | threads;
      if (auto it = op_costs.find(key); it != op_costs.end()) return it->second;
      TP_ASSIGN_OR_RETURN(double x, uncached_op_cost(op, threads));
      op_costs.emplace(key, x);
      return x;
    };
  SearchResult result;
  CostCache cache(cost);
  const int max_lanes = std::max(1, std::min(options.s, options.threads));
  if (options.strategy == Strategy::kSequential) {
    result.lanes = 1;
    for (int v = 0; v < g.size(); ++v) {
      StageChoice c{{{v}}, {options.threads}, false};
      TP_ASSIGN_OR_RETURN(double s, cache(c));
      c.cost_s = s;
      result.cost_s += s;
      result.stages.push_back(std::move(c));
    }
  } else if (options.strategy == Strategy::kGreedy) {
    result.lanes = max_lanes;
    TP_RETURN_IF_ERROR(greedy(g, options, cache, op_cost, result.stages, result.cost_s));
  } else {
    if (options.strategy != Strategy::kParallel && !can_merge)
      return Status::InvalidArgument("the merge strategies need to know which operators can merge");
    // The search runs over units: chains of operators in regions longer than a block (each operator
    // its own unit elsewhere, and everywhere without contract_chains). A stage of units is the
    // stage of their operators, and a unit's cost alone its operators' sum.
    const int max_block = std::min(options.max_block, 64);
    const Contraction chains =
        contract_long_chains(g, options.contract_chains ? max_block : std::numeric_limits<int>::max());
    const std::vector<std::vector<int>>& members = chains.members;
    auto expand = [&](const StageChoice& c) {
      StageChoice out = c;
      for (size_t k = 0; k < c.groups.size(); ++k) {
        out.groups[k].clear();
        for (int u : c.groups[k]) out.groups[k].insert(out.groups[k].end(), members[u].begin(), members[u].end());
        std::sort(out.groups[k].begin(), out.groups[k].end());
      }
      return out;
    };
    // A chain alone in a stage of one group runs its operators back to back on that group's
    // threads; the sequential schedule runs them as one stage each. Whichever costs less is the
    // unit's stage for the DP (a stage's timing need not be its operators' sum), so a search over
    // chains never ends above the sequential estimate. Where the operators' own stages won (the
    // stage's cost is below that of the chain's stage), the schedule gets those stages.
    auto alone = [&](const StageChoice& c) {
      return !c.merged && c.groups.size() == 1 && c.groups[0].size() == 1 && members[c.groups[0][0]].size() > 1;
    };
    const StageCostFn unit_cost = [&](const StageChoice& c) -> Result<double> {
      TP_ASSIGN_OR_RETURN(double whole, cache(expand(c)));
      if (!alone(c)) return whole;
      double apart = 0;
      for (int v : members[c.groups[0][0]]) {
        TP_ASSIGN_OR_RETURN(double x, cache(StageChoice{{{v}}, {c.threads[0]}, false}));
        apart += x;
      }
      return std::min(whole, apart);
    };
    CostCache unit_cache(unit_cost);
    CanMergeFn unit_merge;
    if (can_merge)
      unit_merge = [&](const std::vector<int>& units) {
        std::vector<int> ops;
        for (int u : units) {
          if (members[u].size() != 1) return false;
          ops.push_back(members[u][0]);
        }
        return can_merge(ops);
      };
    OpCostFn unit_op_cost;
    if (op_cost)
      unit_op_cost = [&](int u, int threads) -> Result<double> {
        double sum = 0;
        for (int v : members[u]) {
          TP_ASSIGN_OR_RETURN(double x, op_cost(v, threads));
          sum += x;
        }
        return sum;
      };
    StageBoundFn unit_bound;
    if (bound) unit_bound = [&](const StageChoice& c) { return bound(expand(c)); };
    const std::vector<std::vector<int>> blocks = partition_blocks(chains.units, max_block);
    // Each block keeps the deepest search of it that finished; `lanes` 0: none did (its units run
    // one per stage, as the sequential schedule runs them).
    struct BlockPlan {
      std::vector<StageChoice> stages;
      double cost_s = 0;
      int lanes = 0;
    };
    std::vector<BlockPlan> plans(blocks.size());
    // One search of block b with at most `lanes` groups per stage; `deadline` 0: to the end.
    auto search_block = [&](size_t b, int lanes, double deadline, BlockPlan& out) -> Status {
      BlockSearch search(chains.units, blocks[b], options, unit_cache, unit_merge, unit_op_cost, unit_bound, lanes,
                         deadline);
      out = BlockPlan{};
      Status st = search.run(out.stages, out.cost_s, result.states);
      result.stages_pruned += search.pruned();
      out.lanes = st.ok() ? lanes : 0;
      return st;
    };
    std::vector<int> levels;
    if (options.time_budget_s > 0)
      for (int l = 2; l < max_lanes; l *= 2) levels.push_back(l);
    levels.push_back(max_lanes);
    const double end = options.time_budget_s > 0 ? t0 + options.time_budget_s : 0;
    // The first level: each block within a share of what is left of the budget, in proportion to
    // its units (what a block leaves unused goes to the later ones).
    size_t units_left = 0;
    for (const std::vector<int>& block : blocks) units_left += block.size();
    for (size_t b = 0; b < blocks.size(); ++b) {
      double deadline = 0;
      if (end > 0) {
        const double now = steady_seconds();
        deadline =
            now + std::max(0.0, end - now) * static_cast<double>(blocks[b].size()) / static_cast<double>(units_left);
      }
      units_left -= blocks[b].size();
      Status st = search_block(b, levels[0], deadline, plans[b]);
      if (st.code() == StatusCode::kTimeout && deadline > 0) continue;  // tried again below
      TP_RETURN_IF_ERROR(st);
    }
    // The blocks cut in their share, again with all that is left (the stages they costed are
    // cached, so a second try goes on where the first stopped); those cut again keep their units'
    // own stages.
    for (size_t b = 0; b < blocks.size(); ++b) {
      if (plans[b].lanes != 0) continue;
      Status st = search_block(b, levels[0], end, plans[b]);
      if (st.ok()) continue;
      if (st.code() != StatusCode::kTimeout) return st;
      plans[b] = BlockPlan{};
      for (int u : blocks[b]) {
        StageChoice c{{{u}}, {options.threads}, false};
        TP_ASSIGN_OR_RETURN(c.cost_s, unit_cache(c));
        plans[b].cost_s += c.cost_s;
        plans[b].stages.push_back(std::move(c));
      }
      result.budget_cut = true;
      ++result.blocks_unsearched;
    }
    // Deeper levels, block by block, within the budget; a block cut at one level keeps the last
    // level it finished, and the search stops there.
    for (size_t i = 1; i < levels.size() && !result.budget_cut; ++i) {
      for (size_t b = 0; b < blocks.size(); ++b) {
        if (plans[b].lanes != levels[i - 1]) continue;  // its first search was cut
        BlockPlan deeper;
        Status st = search_block(b, levels[i], end, deeper);
        if (st.code() == StatusCode::kTimeout && steady_seconds() > end) {
          result.budget_cut = true;
          break;
        }
        TP_RETURN_IF_ERROR(st);
        plans[b] = std::move(deeper);
      }
    }
    std::vector<StageChoice> stages;
    result.lanes = max_lanes;
    for (BlockPlan& p : plans) {
      stages.insert(stages.end(), std::make_move_iterator(p.stages.begin()), std::make_move_iterator(p.stages.end()));
      result.cost_s += p.cost_s;
      result.lanes = std::min(result.lanes, std::max(p.lanes, 1));
    }
    result.blocks = static_cast<int>(blocks.size());
    for (const StageChoice& c : stages) {
      StageChoice out = expand(c);
      if (alone(c)) {
        TP_ASSIGN_OR_RETURN(double whole, cache(out));  // costed in the search: no new timing
        if (c.cost_s < whole) {
          for (int v : members[c.groups[0][0]]) {
            StageChoice one{{{v}}, {c.threads[0]}, false};
            TP_ASSIGN_OR_RETURN(one.cost_s, cache(one));
            result.stages.push_back(std::move(one));
          }
          ++result.chains_split;
          continue;
        }
      }
      result.stages.push_back(std::move(out));
      result.stages.back().cost_s = c.cost_s;
    }
  }
  result.stages_costed = cache.size();
  result.search_s = steady_seconds() - t0;
  return result;
}

void order_single_stages(const OpGraph& g, std::vector<StageChoice>& stages, const OpCostFn& op_cost) {
  auto single = [](const StageChoice& c) { return !c.merged && c.groups.size() == 1 && !c.groups[0].empty(); };
  std::vector<int> stage_of(g.size(), -1);
  for (size_t begin = 0; begin < stages.size();) {
    size_t end = begin;
    while (end < stages.size() && single(stages[end])) ++end;
    if (end - begin > 1) {
      // Kahn's algorithm over the run's stages; an edge from stage a to stage b where an operator of
      // b has a predecessor in a. Ready stages leave by their first operator.
      const int n = static_cast<int>(end - begin);
      for (int k = 0; k < n; ++k)
        for (int v : stages[begin + k].groups[0]) stage_of[v] = k;
      std::vector<std::vector<int>> next(n);
      std::vector<int> waiting(n, 0);
      for (int k = 0; k < n; ++k) {
        std::vector<int> from;
        for (int v : stages[begin + k].groups[0])
          for (int u : g.preds[v])
            if (stage_of[u] >= 0 && stage_of[u] != k) from.push_back(stage_of[u]);
        std::sort(from.begin(), from.end());
        from.erase(std::unique(from.begin(), from.end()), from.end());
        for (int a : from) next[a].push_back(k);
        waiting[k] = static_cast<int>(from.size());
      }
      auto first_op = [&](int k) {
        return *std::min_element(stages[begin + k].groups[0].begin(), stages[begin + k].groups[0].end());
      };
      using Item = std::pair<int, int>;  // (first operator, stage)
      std::priority_queue<Item, std::vector<Item>, std::greater<Item>> ready;
      for (int k = 0; k < n; ++k)
        if (waiting[k] == 0) ready.push({first_op(k), k});
      std::vector<int> order;
      while (!ready.empty()) {
        const int k = ready.top().second;
        ready.pop();
        order.push_back(k);
        for (int b : next[k])
          if (--waiting[b] == 0) ready.push({first_op(b), b});
      }
      for (int k = 0; k < n; ++k)
        for (int v : stages[begin + k].groups[0]) stage_of[v] = -1;
      if (static_cast<int>(order.size()) != n) {  // the run was no valid order to begin with: left as is
        begin = end;
        continue;
      }
      std::vector<StageChoice> ordered;
      for (int k : order) ordered.push_back(std::move(stages[begin + k]));
      std::vector<int> ops;
      for (const StageChoice& c : ordered) ops.insert(ops.end(), c.groups[0].begin(), c.groups[0].end());
      if (!std::is_sorted(ops.begin(), ops.end())) {
        // A stage of several operators sits across another's: one stage per operator, in graph
        // order (which is topological), each with its share of its stage's cost.
        std::vector<StageChoice> split;
        for (const StageChoice& c : ordered) {
          std::vector<double> weight;
          double total = 0;
          for (int v : c.groups[0]) {
            double w = 1;
            if (op_cost)
              if (Result<double> x = op_cost(v, c.threads[0]); x.ok() && *x > 0) w = *x;
            weight.push_back(w);
            total += w;
          }
          for (size_t i = 0; i < c.groups[0].size(); ++i) {
            StageChoice one{{{c.groups[0][i]}}, {c.threads[0]}, false};
            one.cost_s = c.cost_s * weight[i] / total;
            split.push_back(std::move(one));
          }
        }
        std::sort(split.begin(), split.end(),
                  [](const StageChoice& a, const StageChoice& b) { return a.groups[0][0] < b.groups[0][0]; });
        ordered = std::move(split);
      }
      stages.erase(stages.begin() + static_cast<std::ptrdiff_t>(begin),
                   stages.begin() + static_cast<std::ptrdiff_t>(end));
      stages.insert(stages.begin() + static_cast<std::ptrdiff_t>(begin), std::make_move_iterator(ordered.begin()),
                    std::make_move_iterator(ordered.end()));
      end = begin + ordered.size();
    }
    begin = end == begin ? end + 1 : end;
  }
}

}  // namespace tensorperf::graphsched
