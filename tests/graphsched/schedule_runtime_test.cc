// Stage schedules on real models: the executor's operator DAG, concurrent runs against sequential
// ones, merged convolutions against the separate ones, the search with measured costs and the
// database as its cache, and schedules refused for another graph.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "db/record_store.h"
#include "graphsched/judge.h"
#include "graphsched/schedule_build.h"
#include "graphsched/scheduler.h"
#include "ir/models/zoo.h"
#include "ir/task_extraction.h"
#include "measure/device.h"

namespace tensorperf::graphsched {
namespace {

const measure::Device& device() {
  static const measure::Device d = [] {
    measure::DeviceOptions o;
    o.threads = 2;
    Result<measure::Device> r = measure::detect_device(o);
    if (!r.ok()) throw std::runtime_error(r.status().message());
    return *r;
  }();
  return d;
}

ir::Graph model(const std::string& name, int64_t image_size, int64_t batch = 1) {
  ir::ModelOptions o;
  o.image_size = image_size;
  o.batch = batch;
  Result<ir::Graph> g = ir::build_model(name, o);
  if (!g.ok()) throw std::runtime_error(g.status().message());
  return *g;
}

runtime::ExecutorOptions options(runtime::ConfigPolicy policy = runtime::ConfigPolicy::kOnednn) {
  runtime::ExecutorOptions o;
  o.policy = policy;
  o.device_key = device().key();
  o.target = device().target;
  o.threads = 2;
  o.seed = 5;
  return o;
}

std::vector<std::vector<float>> run(runtime::Executor& e) {
  std::mt19937_64 rng(3);
  for (size_t i = 0; i < e.num_inputs(); ++i) e.input(i).fill_random(rng);
  Status st = e.run();
  if (!st.ok()) throw std::runtime_error(st.message());
  std::vector<std::vector<float>> out;
  for (size_t i = 0; i < e.num_outputs(); ++i)
    out.emplace_back(e.output(i).f32(), e.output(i).f32() + e.output(i).num_elements());
  return out;
}

double max_relative_difference(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    EXPECT_EQ(a[i].size(), b[i].size());
    double scale = 1e-6;
    for (float x : a[i]) scale = std::max(scale, std::abs(static_cast<double>(x)));
    for (size_t k = 0; k < a[i].size() && k < b[i].size(); ++k)
      worst = std::max(worst, std::abs(static_cast<double>(a[i][k]) - b[i][k]) / scale);
  }
  return worst;
}

std::unique_ptr<runtime::Executor> load(const ir::Graph& g, const runtime::ExecutorOptions& o) {
  Result<std::unique_ptr<runtime::Executor>> e = runtime::Executor::load(g, o);
  if (!e.ok()) throw std::runtime_error(e.status().message());
  return std::move(*e);
}

int index_of(const OpGraph& g, const std::string& name) {
  for (int i = 0; i < g.size(); ++i)
    if (g.names[i] == name) return i;
  return -1;
}

// oneDNN's defaults, but every convolution in activation format `format`. "plain" (NCHW): each
// concat is a view its producers write into; "nhwc": a copying step of its own. On any CPU.
runtime::ExecutorOptions convs_in(const ir::Graph& g, const std::string& format) {
  runtime::ExecutorOptions o = options();
  Result<std::vector<std::pair<ir::FusedOp, ir::Workload>>> fused = ir::fuse_graph(g);
  if (!fused.ok()) throw std::runtime_error(fused.status().message());
  for (const auto& [f, w] : *fused)
    if (w.op == ir::OpKind::kConv2d)
      o.fixed_configs[w.key()] =
          runtime::ChosenConfig{kernels::Config{"onednn", {{"format", format}, {"algorithm", "direct"}}}};
  return o;
}
runtime::ExecutorOptions plain_convs(const ir::Graph& g) { return convs_in(g, "plain"); }

TEST(OperatorGraph, PredecessorsFollowTheDataThroughViewsAndConcats) {
  const ir::Graph g = model("squeezenet1_1", 64);
  auto e = load(g, plain_convs(g));
  const OpGraph ops = OpGraph::from_executor(*e);
  ASSERT_GT(ops.size(), 20);
  for (int v = 0; v < ops.size(); ++v)
    for (int u : ops.preds[v]) EXPECT_LT(u, v);
  // A fire module's squeeze reads the previous module's concat, written in place by both expands.
  const int squeeze = index_of(ops, "features.4.squeeze");
  const int e1 = index_of(ops, "features.3.expand1x1"), e3 = index_of(ops, "features.3.expand3x3");
  ASSERT_GE(squeeze, 0);
  ASSERT_GE(e1, 0);
  ASSERT_GE(e3, 0);
  EXPECT_EQ(ops.preds[squeeze], (std::vector<int>{e1, e3}));
  // The two expands read the same squeeze and nothing else.
  EXPECT_EQ(ops.preds[e1], ops.preds[e3]);
  EXPECT_EQ(ops.preds[e1].size(), 1u);
}

// A greedy schedule (costs made up: only its shape matters here) runs concurrent stages.
runtime::StageSchedule greedy_schedule(const ir::Graph& g, const OpGraph& ops, int threads = 2) {
  SearchOptions o;
  o.strategy = Strategy::kGreedy;
  o.threads = threads;
  Result<SearchResult> r = schedule_graph(
      ops, o, [](const StageChoice& c) -> Result<double> { return 1e-3 * static_cast<double>(c.groups.size()); }, {},
      [](int op, int) -> Result<double> { return 1e-4 * (1 + op % 3); });
  if (!r.ok()) throw std::runtime_error(r.status().message());
  runtime::StageSchedule s = make_schedule(ops, *r, threads);
  s.graph = runtime::graph_fingerprint(g);
  return s;
}

// A schedule searched where each concat was a channels-last copy (an operator of its own) runs
// where the concats are views (no step): the ops it names that are no step here leave it. (A merge
// that feeds a concat from one kernel's split output does the same to a searched schedule.)
TEST(ConcurrentRuntime, AScheduleNamingConcatsThatAreViewsHereStillRuns) {
  const ir::Graph g = model("squeezenet1_1", 64);
  auto searched_on = load(g, convs_in(g, "nhwc"));
  const OpGraph ops = OpGraph::from_executor(*searched_on);
  ASSERT_GE(std::count_if(ops.names.begin(), ops.names.end(),
                          [](const std::string& n) { return n.find("concat") != std::string::npos; }),
            8);
  const runtime::StageSchedule s = greedy_schedule(g, ops);
  Result<std::unique_ptr<runtime::Executor>> scheduled = load_scheduled(g, s, plain_convs(g));
  ASSERT_TRUE(scheduled.ok()) << scheduled.status().message();
  auto sequential = load(g, plain_convs(g));
  EXPECT_LT(max_relative_difference(run(*sequential), run(**scheduled)), 1e-5);
}

TEST(ConcurrentRuntime, OutputsEqualTheSequentialRun) {
  // RandWire's many concurrent separable convolutions once caught oneDNN's shared scratchpad.
  for (const auto& [name, size] : std::vector<std::pair<std::string, int64_t>>{
           {"squeezenet1_1", 64}, {"inception_v3", 75}, {"randwire", 64}}) {
    const ir::Graph g = model(name, size);
    auto sequential = load(g, options());
    const OpGraph ops = OpGraph::from_executor(*sequential);
    const runtime::StageSchedule s = greedy_schedule(g, ops);
    int concurrent = 0;
    for (const runtime::Stage& st : s.stages) concurrent += st.groups.size() > 1;
    EXPECT_GT(concurrent, 2) << name;
    Result<std::unique_ptr<runtime::Executor>> scheduled = load_scheduled(g, s, options());
    ASSERT_TRUE(scheduled.ok()) << scheduled.status().message();
    const auto want = run(*sequential);
    // Kernels of one and two threads may sum in another order: equal up to rounding.
    EXPECT_LT(max_relative_difference(want, run(**scheduled)), 1e-5) << name;
    EXPECT_LT(max_relative_difference(want, run(**scheduled)), 1e-5) << name << " (second run)";
    // Activations that live in one stage never share memory, so the plan may need more; never less
    // than what one activation needs.
    EXPECT_GT((*scheduled)->arena_bytes(), 0);
  }
}

TEST(ConcurrentRuntime, EachStageIsTimedAsItRunsInTheModel) {
  const ir::Graph g = model("squeezenet1_1", 64);
  auto sequential = load(g, options());
  std::vector<double> seconds;
  EXPECT_FALSE(sequential->run_stages_timed(seconds).ok());  // no stages without a schedule
  EXPECT_TRUE(sequential->stages().empty());
  const OpGraph ops = OpGraph::from_executor(*sequential);
  const runtime::StageSchedule s = greedy_schedule(g, ops);
  Result<std::unique_ptr<runtime::Executor>> scheduled = load_scheduled(g, s, options());
  ASSERT_TRUE(scheduled.ok()) << scheduled.status().message();
  runtime::Executor& e = **scheduled;
  // The stages as run are the schedule's (this graph needs no added copies), each step once.
  const auto stages = e.stages();
  ASSERT_EQ(stages.size(), s.stages.size());
  std::vector<int> seen(e.steps().size(), 0);
  for (size_t k = 0; k < stages.size(); ++k) {
    ASSERT_EQ(stages[k].size(), s.stages[k].groups.size()) << "stage " << k;
    for (size_t j = 0; j < stages[k].size(); ++j) {
      std::vector<std::string> names;
      for (int i : stages[k][j]) names.push_back(e.steps()[i].name), ++seen[i];
      EXPECT_EQ(names, s.stages[k].groups[j].ops) << "stage " << k << " group " << j;
    }
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), static_cast<long>(seen.size()));
  // Timed twice (its first runs): each stage's seconds add up; the outputs are the sequential run's.
  const auto want = run(*sequential);
  std::mt19937_64 rng(3);  // run()'s inputs
  for (size_t i = 0; i < e.num_inputs(); ++i) e.input(i).fill_random(rng);
  ASSERT_TRUE(e.run_stages_timed(seconds).ok());
  ASSERT_EQ(seconds.size(), stages.size());
  const std::vector<double> once = seconds;
  ASSERT_TRUE(e.run_stages_timed(seconds).ok());
  for (size_t k = 0; k < seconds.size(); ++k) {
    EXPECT_GT(once[k], 0) << "stage " << k;
    EXPECT_GT(seconds[k], once[k]) << "stage " << k;
  }
  std::vector<std::vector<float>> timed;
  for (size_t i = 0; i < e.num_outputs(); ++i)
    timed.emplace_back(e.output(i).f32(), e.output(i).f32() + e.output(i).num_elements());
  EXPECT_LT(max_relative_difference(want, timed), 1e-5);
}

TEST(ConcurrentRuntime, GroupsOfSeveralThreadsComputeWhatTheSequentialRunDoes) {
  // At 4 threads the greedy stages have groups of 2 threads: their oneDNN and Halide kernels run on
  // the OpenMP teams of the stage runtime's own threads (runtime/group_pool.h; 4 threads on this
  // machine's 2 cores: correctness only).
  const ir::Graph g = model("squeezenet1_1", 64);
  for (runtime::ConfigPolicy policy : {runtime::ConfigPolicy::kOnednn, runtime::ConfigPolicy::kHalideDefault}) {
    runtime::ExecutorOptions o = options(policy);
    o.threads = 4;
    auto sequential = load(g, o);
    const OpGraph ops = OpGraph::from_executor(*sequential);
    const runtime::StageSchedule s = greedy_schedule(g, ops, 4);
    int wide_groups = 0;
    for (const runtime::Stage& st : s.stages)
      for (const runtime::StageGroup& group : st.groups) wide_groups += st.groups.size() > 1 && group.threads > 1;
    EXPECT_GT(wide_groups, 2);
    Result<std::unique_ptr<runtime::Executor>> scheduled = load_scheduled(g, s, o);
    ASSERT_TRUE(scheduled.ok()) << scheduled.status().message();
    const auto want = run(*sequential);
    EXPECT_LT(max_relative_difference(want, run(**scheduled)), 1e-5) << runtime::policy_name(policy);
    EXPECT_LT(max_relative_difference(want, run(**scheduled)), 1e-5) << runtime::policy_name(policy) << ", second run";
  }
}

// A channels-last concat copies with its group's threads in a stage schedule, as it does with all
// of them unscheduled: the sequential schedule runs each concat on both threads (it copied on one,
// and SqueezeNet's sequential schedule ran 3-4% slower than the unscheduled run).
TEST(ConcurrentRuntime, ChannelsLastConcatsCopyWithTheirGroupsThreads) {
  const ir::Graph g = model("squeezenet1_1", 64);
  const runtime::ExecutorOptions o = convs_in(g, "nhwc");
  auto e = load(g, o);
  const OpGraph ops = OpGraph::from_executor(*e);
  runtime::StageSchedule seq = runtime::sequential_schedule(ops.names, 2);
  seq.graph = runtime::graph_fingerprint(g);
  Result<std::unique_ptr<runtime::Executor>> scheduled = load_scheduled(g, seq, o);
  ASSERT_TRUE(scheduled.ok()) << scheduled.status().message();
  int concats = 0;
  for (const runtime::Executor* x : {e.get(), scheduled->get()})
    for (const runtime::StepInfo& s : x->steps())
      if (s.provider == "layout" && s.op == "concat") {
        ++concats;
        EXPECT_EQ(s.threads, 2) << s.name << (x == e.get() ? " unscheduled" : " in the sequential schedule");
      }
  EXPECT_EQ(concats, 16) << "SqueezeNet's eight concats, copied channels last, in each executor";
  EXPECT_LT(max_relative_difference(run(*e), run(**scheduled)), 1e-5);
}

TEST(Judge, TimesEveryCandidateOnTheWholeModelAndPicksTheFastest) {
  const ir::Graph g = model("squeezenet1_1", 64);
  auto e = load(g, options());
  const OpGraph ops = OpGraph::from_executor(*e);
  runtime::StageSchedule seq = runtime::sequential_schedule(ops.names, 2);
  seq.graph = runtime::graph_fingerprint(g);
  const std::vector<Candidate> candidates = {{"sequential", seq}, {"greedy", greedy_schedule(g, ops)}};
  JudgeOptions jo;
  jo.rounds = 3;
  jo.runs_per_round = 2;
  Result<Verdict> v = judge_schedules(g, candidates, options(), jo);
  ASSERT_TRUE(v.ok()) << v.status().message();
  ASSERT_EQ(v->latency_ms.size(), 2u);
  ASSERT_EQ(v->rounds_ms.size(), 2u);
  for (size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(v->rounds_ms[k].size(), 3u);
    EXPECT_GT(v->latency_ms[k], 0);
  }
  // The pick is by the per-round ratio to the first candidate (robust to drift between rounds).
  ASSERT_EQ(v->relative.size(), 2u);
  EXPECT_EQ(v->relative[0], 1.0);
  std::vector<double> ratios;
  for (size_t r = 0; r < 3; ++r) ratios.push_back(v->rounds_ms[1][r] / v->rounds_ms[0][r]);
  std::sort(ratios.begin(), ratios.end());
  EXPECT_DOUBLE_EQ(v->relative[1], ratios[1]);
  const int wins = (v->rounds_ms[1][0] < v->rounds_ms[0][0]) + (v->rounds_ms[1][1] < v->rounds_ms[0][1]) +
                   (v->rounds_ms[1][2] < v->rounds_ms[0][2]);
  EXPECT_EQ(v->wins[1], wins);
  // The first rounds' pick; where there is one, it ran against the first alone in the confirmation
  // rounds and stays only if it won clearly there too.
  EXPECT_EQ(v->picked, v->relative[1] <= 1.0 - jo.margin && wins == 3 ? 1u : 0u);
  if (v->picked == 0) {
    EXPECT_TRUE(v->confirm_first_ms.empty());
    EXPECT_EQ(v->best, 0u);
  } else {
    ASSERT_EQ(v->confirm_first_ms.size(), static_cast<size_t>(jo.confirm_rounds));
    ASSERT_EQ(v->confirm_picked_ms.size(), static_cast<size_t>(jo.confirm_rounds));
    int confirm_wins = 0;
    for (int r = 0; r < jo.confirm_rounds; ++r) confirm_wins += v->confirm_picked_ms[r] < v->confirm_first_ms[r];
    EXPECT_EQ(v->confirm_wins, confirm_wins);
    EXPECT_EQ(v->best, v->confirm_relative <= 1.0 - jo.margin && confirm_wins >= 4 ? 1u : 0u);
  }
  EXPECT_LT(v->max_output_difference, 1e-5);
  // A candidate made for another graph is refused by name; no candidates is an error too.
  const ir::Graph other = model("squeezenet1_1", 96);
  Result<Verdict> wrong = judge_schedules(other, candidates, options(), jo);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("sequential schedule"), std::string::npos) << wrong.status().message();
  EXPECT_NE(wrong.status().message().find("another graph"), std::string::npos) << wrong.status().message();
  EXPECT_FALSE(judge_schedules(g, {}, options(), jo).ok());
}

// The incumbent (the first candidate) stays unless another beats it by the margin in most rounds.
TEST(Judge, KeepsTheFirstUnlessAnotherClearlyBeatsIt) {
  JudgeOptions jo;  // margin 3%, 4 of 5 rounds
  auto verdict = [&](std::vector<std::vector<double>> rounds) {
    Verdict v;
    v.rounds_ms = std::move(rounds);
    decide(v, jo);
    return v;
  };
  const std::vector<double> first = {10, 10, 10, 10, 10};
  // 10% faster in every round: replaces it.
  Verdict v = verdict({first, {9, 9, 9, 9, 9}});
  EXPECT_EQ(v.best, 1u);
  EXPECT_DOUBLE_EQ(v.relative[1], 0.9);
  EXPECT_EQ(v.wins[1], 5);
  // 1% faster in every round: within the noise, the first stays.
  EXPECT_EQ(verdict({first, {9.9, 9.9, 9.9, 9.9, 9.9}}).best, 0u);
  // A median ratio of 0.9, but slower in two rounds of five: not clear enough.
  v = verdict({first, {9, 9, 9, 11, 12}});
  EXPECT_DOUBLE_EQ(v.relative[1], 0.9);
  EXPECT_EQ(v.wins[1], 3);
  EXPECT_EQ(v.best, 0u);
  // Slower in one round of five: still clear.
  EXPECT_EQ(verdict({first, {9, 9, 9, 9, 12}}).best, 1u);
  // Of two clear winners, the lower median ratio; an unclear faster one does not count.
  v = verdict({first, {9, 9, 9, 9, 9}, {8, 8, 8, 8, 9}, {5, 5, 5, 15, 15}});
  EXPECT_EQ(v.best, 2u);
  EXPECT_EQ(v.latency_ms[3], 5);
  // Drift moves every candidate of a round alike; the ratios see through it.
  EXPECT_EQ(verdict({{10, 20, 10, 20, 10}, {9, 18, 9, 18, 9}}).best, 1u);
  // With the margin and wins off, the plain fastest by ratio.
  jo.margin = 0;
  jo.min_wins = 0;
  EXPECT_EQ(verdict({first, {9.9, 9.9, 9.9, 9.9, 9.9}}).best, 1u);
}

// A pick of the first rounds replaces the first only if it beats it clearly again in the
// confirmation rounds (a pick that won in a slow phase of the machine and then lost stays out).
TEST(Judge, APickIsKeptOnlyIfTheConfirmationRoundsAgree) {
  JudgeOptions jo;  // margin 3%, 4 of 5 rounds
  auto verdict = [&](std::vector<double> confirm_first, std::vector<double> confirm_picked) {
    Verdict v;
    v.rounds_ms = {{10, 10, 10, 10, 10}, {9, 9, 9, 9, 9}, {9.5, 9.5, 9.5, 9.5, 9.5}};
    decide(v, jo);
    EXPECT_EQ(v.best, 1u);
    v.confirm_first_ms = std::move(confirm_first);
    v.confirm_picked_ms = std::move(confirm_picked);
    confirm(v, jo);
    EXPECT_EQ(v.picked, 1u);
    return v;
  };
  // Faster again by 10% in every round: kept.
  Verdict v = verdict({10, 10, 10, 10, 10}, {9, 9, 9, 9, 9});
  EXPECT_EQ(v.best, 1u);
  EXPECT_DOUBLE_EQ(v.confirm_relative, 0.9);
  EXPECT_EQ(v.confirm_wins, 5);
  // Slower in six of seven rounds after winning (the case seen on a 2-core host): the first stays.
  v = verdict({144.3, 134.4, 134.6, 131.7, 131.8, 131.7, 130.6}, {139.8, 136.8, 139.7, 145.9, 135.8, 137.8, 137.9});
  EXPECT_EQ(v.best, 0u);
  EXPECT_EQ(v.confirm_wins, 1);
  EXPECT_GT(v.confirm_relative, 1.0);
  // Faster, but within the margin: the first stays.
  EXPECT_EQ(verdict({10, 10, 10, 10, 10}, {9.9, 9.9, 9.9, 9.9, 9.9}).best, 0u);
  // No confirmation rounds (confirm_rounds 0): the first rounds' pick stands.
  EXPECT_EQ(verdict({}, {}).best, 1u);
  // Nothing picked: nothing to confirm, the first stays whatever the confirmation rounds hold.
  Verdict none;
  none.rounds_ms = {{10, 10, 10, 10, 10}, {11, 11, 11, 11, 11}};
  decide(none, jo);
  none.confirm_first_ms = {10, 10, 10, 10, 10};
  none.confirm_picked_ms = {5, 5, 5, 5, 5};
  confirm(none, jo);
  EXPECT_EQ(none.best, 0u);
  EXPECT_EQ(none.picked, 0u);
  EXPECT_EQ(none.confirm_wins, 0);
}

TEST(Merge, MergedConvolutionsComputeWhatTheSeparateOnesDo) {
  for (const auto& [name, size] : std::vector<std::pair<std::string, int64_t>>{{"squeezenet1_1", 64}, {"inception_v3", 75}}) {
    const ir::Graph g = model(name, size);
    Result<MergePlanner> planner = MergePlanner::analyse(g);
    ASSERT_TRUE(planner.ok()) << planner.status().message();
    auto e = load(g, options());
    const OpGraph ops = OpGraph::from_executor(*e);
    // Every mergeable set of operators that share a predecessor, disjoint, at most three of them.
    std::vector<runtime::MergeSpec> merges;
    std::set<int> used;
    for (int a = 0; a < ops.size() && merges.size() < 3; ++a)
      for (int b = a + 1; b < ops.size() && merges.size() < 3; ++b) {
        if (used.count(a) || used.count(b) || !planner->can_merge({ops.names[a], ops.names[b]})) continue;
        merges.push_back({"merge:" + ops.names[a] + "+" + ops.names[b], {ops.names[a], ops.names[b]}});
        used.insert(a);
        used.insert(b);
      }
    ASSERT_FALSE(merges.empty()) << name;
    Result<ir::Graph> merged = apply_merges(g, merges, options().seed);
    ASSERT_TRUE(merged.ok()) << merged.status().message();
    EXPECT_LT(merged->nodes().size(), g.nodes().size() + merges.size() * 3);
    for (runtime::ConfigPolicy policy : {runtime::ConfigPolicy::kReference, runtime::ConfigPolicy::kOnednn}) {
      auto separate = load(g, options(policy));
      auto together = load(*merged, options(policy));
      EXPECT_LT(max_relative_difference(run(*separate), run(*together)), 1e-5)
          << name << " " << runtime::policy_name(policy);
    }
  }
  // Convolutions of different inputs do not merge.
  const ir::Graph g = model("squeezenet1_1", 64);
  Result<MergePlanner> planner = MergePlanner::analyse(g);
  ASSERT_TRUE(planner.ok());
  EXPECT_TRUE(planner->can_merge({"features.3.expand1x1", "features.3.expand3x3"}));
  EXPECT_FALSE(planner->can_merge({"features.3.expand1x1", "features.4.expand1x1"}));
  EXPECT_FALSE(planner->can_merge({"features.3.expand1x1"}));
  Result<ir::Graph> bad = apply_merges(g, {{"m", {"features.3.expand1x1", "features.4.expand1x1"}}}, 0);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("merge 'm'"), std::string::npos);
}

class TempDb : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() / ("tp_sched_" + std::to_string(::getpid()) + ".db")).string();
  }
  void TearDown() override {
    scheduler_.reset();
    store_.reset();
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + suffix);
  }
  // scheduler_: a scheduler of `g` on oneDNN's defaults (stages timed twice) over store_, an empty
  // database. Whether a concurrent stage pays is a timing, and a search that found none on a busy
  // machine would find the same again in the stage costs it cached: a search tried again starts
  // here again, with the earlier scheduler closed and its database removed.
  void start_on_an_empty_store(const ir::Graph& g, int verify_rounds) {
    TearDown();
    Result<std::unique_ptr<db::RecordStore>> opened = db::open_store(path_, db::OpenMode::kCreate);
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    store_ = std::move(*opened);
    SchedulerOptions so;
    so.executor = options(runtime::ConfigPolicy::kOnednn);
    so.executor.store = store_.get();
    so.stage_repeat = 2;
    so.verify_rounds = verify_rounds;
    Result<std::unique_ptr<Scheduler>> created = Scheduler::create(g, so);
    ASSERT_TRUE(created.ok()) << created.status().message();
    scheduler_ = std::move(*created);
  }
  std::string path_;
  std::unique_ptr<db::RecordStore> store_;
  std::unique_ptr<Scheduler> scheduler_;
};

TEST_F(TempDb, MeasuredSearchCachesStagesInTheDatabaseAndItsScheduleRuns) {
  const ir::Graph g = model("squeezenet1_1", 64);
  SearchOptions search;
  search.strategy = Strategy::kBoth;
  search.threads = 2;
  runtime::StageSchedule first;
  // Passes 0 and 1 on a host at 2000 MHz, pass 2 on another host of the same device key at 2600.
  for (int pass = 0; pass < 3; ++pass) {
    Result<std::unique_ptr<db::RecordStore>> opened = db::open_store(path_, db::OpenMode::kCreate);
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    std::unique_ptr<db::RecordStore> store = std::move(*opened);
    SchedulerOptions so;
    // oneDNN's defaults: the same kernels in both passes (the database policy times defaults at load,
    // and a different pick is a different stage).
    so.executor = options(runtime::ConfigPolicy::kOnednn);
    so.executor.store = store.get();
    so.stage_repeat = 2;
    so.model = "squeezenet1_1";
    so.clock_mhz = pass < 2 ? 2000 : 2600;
    Result<std::unique_ptr<Scheduler>> scheduler = Scheduler::create(g, so);
    ASSERT_TRUE(scheduler.ok()) << scheduler.status().message();
    Result<Plan> plan = (*scheduler)->plan(search, CostKind::kMeasured);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    EXPECT_GT(plan->search.states, 0);
    EXPECT_LE(plan->search.cost_s, plan->sequential_estimate_s * (1 + 1e-9));  // sequential is a candidate
    if (pass == 0) {
      EXPECT_GT(plan->measured, 0);
      first = plan->schedule;
    } else if (pass == 1) {
      EXPECT_EQ(plan->measured, 0) << "a second search measured again";
      EXPECT_GT(plan->from_store, 0);
    } else {
      // Pass 1 measured nothing with the same records: the other host's were not used.
      EXPECT_GT(plan->measured, 0) << "stage costs of a host at another clock were used";
    }
  }
  // The schedule runs and computes what the sequential run does.
  runtime::ExecutorOptions o = options();
  Result<std::unique_ptr<runtime::Executor>> scheduled = load_scheduled(g, first, o);
  ASSERT_TRUE(scheduled.ok()) << scheduled.status().message();
  auto sequential = load(g, o);
  EXPECT_LT(max_relative_difference(run(*sequential), run(**scheduled)), 1e-5);
  // A schedule file survives a round trip and is refused for another graph with a clear error.
  Result<runtime::StageSchedule> back = runtime::schedule_from_json(runtime::schedule_to_json(first));
  ASSERT_TRUE(back.ok());
  Result<std::unique_ptr<runtime::Executor>> other = load_scheduled(model("squeezenet1_1", 64, 2), *back, o);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("another graph"), std::string::npos) << other.status().message();
}

TEST_F(TempDb, PredictedSearchMeasuresTheConcurrentStagesItPicksUntilItsScheduleIsChecked) {
  // 32x32 images: convolutions too small for two threads each, so that running two at once pays on
  // any CPU (at 64x64 with channels-last chains, some CPUs find no concurrent stage worth it).
  const ir::Graph g = model("squeezenet1_1", 32);
  SearchOptions search;
  search.strategy = Strategy::kParallel;
  search.threads = 2;
  // Whether a concurrent stage pays is a timing: on a machine busy with other work the search has
  // found none (once, beside another test measuring stages). It searches again on an empty store, at
  // most three times, until its schedule has one: the checks below are about such stages.
  Result<Plan> first = Status::Internal("not searched");
  int concurrent = 0;
  for (int attempt = 0; attempt < 3 && concurrent == 0; ++attempt) {
    ASSERT_NO_FATAL_FAILURE(start_on_an_empty_store(g, 16));  // verify until a round finds nothing new
    first = scheduler_->plan(search, CostKind::kPredicted);
    ASSERT_TRUE(first.ok()) << first.status().message();
    for (const StageChoice& c : first->search.stages) concurrent += c.groups.size() >= 2;
  }
  ASSERT_GT(concurrent, 0) << "three searches found no concurrent stage worth it";
  EXPECT_GT(first->measured, 0);  // operators alone, and the stages the contention model was fitted on
  EXPECT_GT(scheduler_->contention_samples(), 0u) << "squeezenet's fire modules have concurrent stages";
  EXPECT_GT(scheduler_->contention().scale, 0.0);
  EXPECT_GE(scheduler_->contention().shared, 0.0);
  // Every concurrent stage of the schedule was measured, and costs what it measured: a second search
  // finds nothing new to check.
  for (const StageChoice& c : first->search.stages) {
    if (c.groups.size() < 2) continue;
    Result<double> measured = scheduler_->stage_cost(c);
    ASSERT_TRUE(measured.ok()) << measured.status().message();
    EXPECT_DOUBLE_EQ(c.cost_s, *measured);
  }
  const size_t samples = scheduler_->contention_samples();
  Result<Plan> second = scheduler_->plan(search, CostKind::kPredicted);
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_EQ(second->measured, 0);
  EXPECT_EQ(scheduler_->contention_samples(), samples);
  EXPECT_NEAR(second->search.cost_s, first->search.cost_s, 1e-12);
  // The schedule runs and computes what the sequential run does.
  runtime::ExecutorOptions o = options();
  Result<std::unique_ptr<runtime::Executor>> scheduled = load_scheduled(g, first->schedule, o);
  ASSERT_TRUE(scheduled.ok()) << scheduled.status().message();
  auto sequential = load(g, o);
  EXPECT_LT(max_relative_difference(run(*sequential), run(**scheduled)), 1e-5);
}

TEST_F(TempDb, ASearchWithCostsFromTheModelsProfileCorrectsEveryStageAndItsScheduleRuns) {
  const ir::Graph g = model("squeezenet1_1", 32);  // concurrent stages pay on any CPU (above)
  SearchOptions search;
  search.strategy = Strategy::kBoth;
  search.threads = 2;
  // A schedule with concurrent stages, searched with the sequential schedule's op costs: at most
  // three tries, each on an empty store (start_on_an_empty_store), as above.
  Result<Plan> found = Status::Internal("not searched");
  int concurrent = 0;
  for (int attempt = 0; attempt < 3 && concurrent == 0; ++attempt) {
    ASSERT_NO_FATAL_FAILURE(start_on_an_empty_store(g, 1));
    Scheduler& s = *scheduler_;

    // A schedule without concurrent stages has no concurrent factor to fit: its own plan comes back.
    SearchOptions seq = search;
    seq.strategy = Strategy::kSequential;
    Result<Plan> sequential = s.plan(seq, CostKind::kMeasured);
    ASSERT_TRUE(sequential.ok()) << sequential.status().message();
    Result<Plan> same = s.plan_in_model(*sequential, search, 2);
    ASSERT_TRUE(same.ok()) << same.status().message();
    EXPECT_EQ(s.in_model().concurrent_stages, 0);
    EXPECT_EQ(runtime::schedule_to_json(same->schedule), runtime::schedule_to_json(sequential->schedule));

    SearchOptions par = search;
    par.strategy = Strategy::kParallel;
    found = s.plan(par, CostKind::kPredicted);
    ASSERT_TRUE(found.ok()) << found.status().message();
    for (const StageChoice& c : found->search.stages) concurrent += c.groups.size() >= 2;
  }
  ASSERT_GT(concurrent, 0) << "three searches, each on an empty store, found no concurrent stage worth it";
  Scheduler& s = *scheduler_;
  Result<Plan> again = s.plan_in_model(*found, search, 4);
  ASSERT_TRUE(again.ok()) << again.status().message();
  const InModelFactors& f = s.in_model();
  EXPECT_GE(f.concurrent_stages, concurrent);  // the found schedule's, and the next one's if profiled
  EXPECT_GE(f.rounds, 1);
  EXPECT_EQ(f.stages.size(), static_cast<size_t>(f.concurrent_stages));
  EXPECT_GT(f.concurrent, 0.0);
  ASSERT_EQ(f.op.size(), static_cast<size_t>(s.ops().size()));
  int profiled = 0;
  for (double x : f.op) {
    EXPECT_GE(x, kMinOpFactor);
    EXPECT_LE(x, kMaxOpFactor);
    profiled += x != 1.0;
  }
  EXPECT_GT(profiled, s.ops().size() / 2) << "most operators ran in the sequential profile";
  // The new search's costs are the times alone, corrected: each operator on all the threads by its
  // own factor (the sequential estimate), and each concurrent stage by its operators' and the
  // concurrent factor.
  auto op_cost = [&s](int op, int threads) { return s.op_cost(op, threads); };
  double sequential_s = 0;
  for (int v = 0; v < s.ops().size(); ++v) {
    Result<double> alone = s.stage_cost(StageChoice{{{v}}, {2}, false});
    ASSERT_TRUE(alone.ok()) << alone.status().message();
    sequential_s += f.op[v] * *alone;
  }
  EXPECT_NEAR(again->sequential_estimate_s, sequential_s, 1e-9 * sequential_s);
  for (const StageChoice& c : again->search.stages) {
    if (c.merged || c.groups.size() < 2) continue;
    Result<double> alone = s.stage_cost(c);
    ASSERT_TRUE(alone.ok()) << alone.status().message();
    Result<double> corrected = f.cost(c, *alone, op_cost);
    ASSERT_TRUE(corrected.ok());
    EXPECT_NEAR(c.cost_s, *corrected, 1e-9 * *corrected);
  }
  // The schedule runs and computes what the sequential run does.
  runtime::ExecutorOptions o = options();
  Result<std::unique_ptr<runtime::Executor>> scheduled = load_scheduled(g, again->schedule, o);
  ASSERT_TRUE(scheduled.ok()) << scheduled.status().message();
  auto plain = load(g, o);
  EXPECT_LT(max_relative_difference(run(*plain), run(**scheduled)), 1e-5);
}

TEST_F(TempDb, EachStageTimingRuleHasRecordsOfItsOwn) {
  const ir::Graph g = model("squeezenet1_1", 64);
  Result<std::unique_ptr<db::RecordStore>> opened = db::open_store(path_, db::OpenMode::kCreate);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  SearchOptions search;
  search.strategy = Strategy::kSequential;
  search.threads = 2;
  std::vector<int64_t> measured;
  using runtime::StageTiming;
  for (StageTiming timing : {StageTiming::kCold, StageTiming::kCold, StageTiming::kWarm, StageTiming::kColdFirstRun,
                             StageTiming::kColdFirstRun}) {
    SchedulerOptions so;
    so.executor = options(runtime::ConfigPolicy::kOnednn);
    so.executor.store = opened->get();
    so.stage_repeat = 1;
    so.stage_timing = timing;
    Result<std::unique_ptr<Scheduler>> scheduler = Scheduler::create(g, so);
    ASSERT_TRUE(scheduler.ok()) << scheduler.status().message();
    Result<Plan> plan = (*scheduler)->plan(search, CostKind::kMeasured);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    EXPECT_GT(plan->search.cost_s, 0);
    measured.push_back(plan->measured);
  }
  EXPECT_GT(measured[0], 0);
  EXPECT_EQ(measured[1], 0) << "cold timings are found again";
  EXPECT_EQ(measured[2], measured[0]) << "warm timings are not cold ones";
  EXPECT_EQ(measured[3], measured[0]) << "timings cold in their first run only are neither";
  EXPECT_EQ(measured[4], 0);
}

// One convolution's output read by two ReLUs of one workload: r1 feeds a convolution, which takes
// the convolution's layout, r2 is a graph output, which is plain. Both adopt their input's layout;
// r2 then converts its output inside the step, and costs more. The two are the same program, so
// only the steps' layouts tell their stages apart, and each is measured.
TEST_F(TempDb, StepsThatConvertALayoutAreStagesOfTheirOwn) {
  ir::Graph g("two_relus");
  const ir::TensorType act{{1, 32, 28, 28}, ir::DType::kFloat32};
  const ir::ValueId x = g.add_input("x", act);
  auto conv = [&](const std::string& name, ir::ValueId in) {
    const ir::ValueId w = g.add_constant(name + ".weight", ir::TensorType{{32, 32, 1, 1}, ir::DType::kFloat32});
    return g.add_op(ir::OpKind::kConv2d, name, {in, w},
                    ir::Attrs{{"strides", std::vector<int64_t>{1, 1}},
                              {"pads", std::vector<int64_t>{0, 0, 0, 0}},
                              {"dilations", std::vector<int64_t>{1, 1}},
                              {"groups", int64_t{1}}});
  };
  Result<ir::ValueId> v = conv("a", x);
  ASSERT_TRUE(v.ok()) << v.status().message();
  Result<ir::ValueId> r1 = g.add_op(ir::OpKind::kRelu, "r1", {*v});
  Result<ir::ValueId> r2 = g.add_op(ir::OpKind::kRelu, "r2", {*v});
  ASSERT_TRUE(r1.ok() && r2.ok());
  Result<ir::ValueId> b = conv("b", *r1);
  ASSERT_TRUE(b.ok()) << b.status().message();
  g.mark_output(*b);
  g.mark_output(*r2);

  Result<std::unique_ptr<db::RecordStore>> opened = db::open_store(path_, db::OpenMode::kCreate);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  SchedulerOptions so;
  so.executor = options(runtime::ConfigPolicy::kOnednn);
  so.executor.store = opened->get();
  so.stage_repeat = 1;
  Result<std::unique_ptr<runtime::Executor>> e = runtime::Executor::load(g, so.executor);
  ASSERT_TRUE(e.ok()) << e.status().message();
  std::map<std::string, const runtime::StepInfo*> step;
  for (const runtime::StepInfo& s : (*e)->steps()) step[s.name] = &s;
  ASSERT_TRUE(step.count("a") && step.count("r1") && step.count("r2"));
  if (step["a"]->layouts.is_null() || step["a"]->layouts["out"] == "plain")
    GTEST_SKIP() << "oneDNN's convolution writes plain tensors on this CPU";
  EXPECT_EQ(step["r1"]->workload, step["r2"]->workload);
  EXPECT_EQ(step["r1"]->config, step["r2"]->config);
  EXPECT_EQ(step["r1"]->layouts["in"], step["r2"]->layouts["in"]);
  EXPECT_EQ(step["r1"]->layouts["out"], step["a"]->layouts["out"]) << step["r1"]->layouts.dump();
  EXPECT_EQ(step["r2"]->layouts["out"], step["a"]->layouts["out"].get<std::string>() + "->plain")
      << step["r2"]->layouts.dump();

  Result<std::unique_ptr<Scheduler>> scheduler = Scheduler::create(g, so);
  ASSERT_TRUE(scheduler.ok()) << scheduler.status().message();
  SearchOptions search;
  search.strategy = Strategy::kSequential;
  search.threads = 2;
  Result<Plan> plan = (*scheduler)->plan(search, CostKind::kMeasured);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->measured, 4) << "a, r1, r2 and b: r2 is not r1 again";
}

}  // namespace
}  // namespace tensorperf::graphsched
