// One network at one batch through every scheduling strategy, timed side by side: the tensorperf
// part of bench/ios/ios_bench.py.
//
//   ios_runner --model M --batch B --threads T --db FILE [--r 3] [--s 8] [--min-gain 0.02]
//              [--search-budget 120] [--rounds 7] [--seconds 1] [--configs onednn|db] [--save-dir DIR]
//              [--extra NAME=FILE ...] [--time-only] [--warm-stages | --stage-timing cold|cold-first-run|warm]
//              [--stage-profile RUNS]
//              [--profile-runs 0] [--variants NAME,...]
//
// Searches sequential, greedy, IOS-merge, IOS-parallel and IOS-both with measured stage costs (one
// Scheduler: what one search measured, the next finds in the database), IOS-both with predicted
// (composed) costs, IOS-both again with its measured costs corrected by a profile of IOS-both's and
// the sequential schedule in the model (`ios-both-profiled`, --profile-runs runs each; IOS-both's own
// schedule where that has no concurrent stage; 0: not searched), and `chosen`: what `tensorperf schedule
// --strategy both` writes, the judge's pick of those on the whole model; loads an executor for each
// schedule and for each --extra schedule file (another batch's schedule, applied here by operator
// names: the specialisation check); then times them in --rounds rounds of rotating order, each a
// median of about --seconds of runs (each round's times on stderr). Prints one JSON object {model,
// batch, threads, device, variants: [{name, search_s, stages_measured, estimated_ms, latency_ms,
// rounds_ms, stages, concurrent, merged, chosen_from, same_as[, concurrent_factor, losing_stages,
// concurrent_fitted][, for `chosen`: picked, confirm_relative, confirm_wins, confirm_rounds]}]} and writes each searched schedule to --save-dir as
// <model>_b<batch>_<variant>.json (`chosen` too). --time-only skips the searches (sequential and the extras only);
// --variants searches only the named ones of ios-both-predicted, greedy, ios-both, ios-merge and
// ios-parallel beside sequential (the judge then picks among those), so that a check of one strategy
// fits a lent machine's time.
// A variant whose schedule runs just what an earlier one runs (the same operators in the same order
// on the same threads, the same concurrent stages and merges) is not loaded again: it shares that
// one's timings, and `same_as` names it. --stage-profile RUNS adds to each variant "stage_profile":
// each stage's median time in RUNS runs of the model next to its cost run alone, as the search
// measures stages, with its operators' kinds.
//
//   ios_runner --run --model M --batch B --threads T --db FILE [--schedule FILE] [--repeat 20]
//
// runs the model whole instead, as `tensorperf run --configs onednn --json` does (with --schedule, that
// stage schedule), and prints {model, batch, threads, device, latency_ms: {p50, min}, ops: [{name,
// ms}]}: each step's median over the timed runs. ios_bench.py uses it where this program travels
// without `tensorperf` (a lent machine without the project's packages; scripts/pack_binary.sh).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "base/steady_time.h"
#include "db/record_store.h"
#include "graphsched/judge.h"
#include "graphsched/scheduler.h"
#include "ir/models/zoo.h"
#include "measure/device.h"
#include "runtime/omp_wait_policy.h"

using namespace tensorperf;

namespace {

int fail(const std::string& msg) {
  std::fprintf(stderr, "ios_runner: %s\n", msg.c_str());
  return 1;
}

// What a schedule runs, in order: each operator of a one-group stage on its own (the executor runs
// such a stage inline, so [a > b] runs as [a], [b] do), each stage of several groups whole.
std::vector<std::string> run_order(const runtime::StageSchedule& s) {
  std::vector<std::string> out;
  for (const runtime::Stage& st : s.stages) {
    if (st.groups.size() == 1) {
      for (const std::string& op : st.groups[0].ops) out.push_back(std::to_string(st.groups[0].threads) + " " + op);
      continue;
    }
    std::string stage = "|";
    for (const runtime::StageGroup& grp : st.groups) {
      stage += std::to_string(grp.threads);
      for (const std::string& op : grp.ops) stage += " " + op;
      stage += "|";
    }
    out.push_back(stage);
  }
  for (const runtime::MergeSpec& m : s.merges) out.push_back("merge " + m.name);
  return out;
}

bool same_schedule(const runtime::StageSchedule& a, const runtime::StageSchedule& b) {
  return run_order(a) == run_order(b);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Variant {
  std::string name;
  runtime::StageSchedule schedule;
  double search_s = 0, estimated_ms = 0;
  int64_t measured = 0;
  int lanes = 0;            // groups per stage the search that gave it allowed
  bool budget_cut = false;  // the search budget stopped a search
  int blocks = 0, blocks_unsearched = 0;  // blocks searched; of those, left sequential by the budget
  int chains_split = 0;     // chains the search ran as their operators' own stages
  std::string chosen_from;  // `chosen`: which candidate the whole model picked
  // `chosen`: the first rounds' pick, which the confirmation rounds (graphsched::JudgeOptions::
  // confirm_rounds) kept or overturned, its median ratio to sequential there and the rounds it won.
  std::string picked;
  double confirm_relative = 0;
  int confirm_wins = 0, confirm_rounds = 0;
  std::string same_as;      // an earlier variant with the very same schedule, whose timings it shares
  double concurrent_factor = 0;  // ios-both-profiled: concurrent stages in the model over alone (in_model.h)
  int concurrent_fitted = 0;     // the concurrent stages that factor was fitted on
  int losing_stages = 0;         // of those, the ones slower than their operators in the sequential profile
  std::unique_ptr<runtime::Executor> executor;
  std::vector<double> rounds_ms;
};

// Each stage of v's executor as it runs in the model (graphsched::profile_in_model: the median of
// `runs` timed runs) next to what the same stage costs run alone (Scheduler::stage_cost: from the
// database, else measured as the search measures). Stages that are only copies the executor placed
// are left out.
Result<nlohmann::json> profile_stages(Variant& v, graphsched::Scheduler& scheduler, int runs, int threads) {
  TP_ASSIGN_OR_RETURN(std::vector<graphsched::StageInModel> profile,
                      graphsched::profile_in_model(*v.executor, v.schedule, scheduler.ops(), threads, runs));
  nlohmann::json out = nlohmann::json::array();
  for (const graphsched::StageInModel& m : profile) {
    const graphsched::StageChoice& c = m.stage;
    int ops = 0;
    nlohmann::json kinds = nlohmann::json::array();
    for (const std::vector<int>& group : c.groups) {
      ops += static_cast<int>(group.size());
      for (int op : group) kinds.push_back(scheduler.ops().kinds[op]);
    }
    double alone = NAN;
    if (!(c.merged && c.groups.size() > 1)) {
      TP_ASSIGN_OR_RETURN(alone, scheduler.stage_cost(c));
    }
    out.push_back({{"model_ms", m.model_s * 1e3}, {"alone_ms", alone * 1e3}, {"groups", c.groups.size()},
                   {"ops", ops}, {"kinds", std::move(kinds)}, {"placed", m.placed}, {"merged", c.merged},
                   {"threads", c.threads}});
  }
  return out;
}

// What both modes start from: the model at its batch, this machine at --threads, the configs'
// policy and the record store.
struct Setup {
  int threads = 0;
  ir::Graph graph;
  measure::Device device;
  std::unique_ptr<db::RecordStore> store;
  runtime::ExecutorOptions executor;  // oneDNN's defaults (--configs), the store, this device, --threads
};

Result<Setup> set_up(std::map<std::string, std::string>& a) {
  Setup s;
  s.threads = std::stoi(a["--threads"]);
  ir::ModelOptions mo;
  mo.batch = std::stoll(a["--batch"]);
  TP_ASSIGN_OR_RETURN(s.graph, ir::build_model(a["--model"], mo));
  measure::DeviceOptions d;
  d.threads = s.threads;
  TP_ASSIGN_OR_RETURN(s.device, measure::detect_device(d));
  TP_ASSIGN_OR_RETURN(s.executor.policy, runtime::parse_policy(a["--configs"]));
  TP_ASSIGN_OR_RETURN(s.store, db::open_store(a["--db"], db::OpenMode::kCreate));
  s.executor.store = s.store.get();
  s.executor.device_key = s.device.key();
  s.executor.target = s.device.target;
  s.executor.threads = s.threads;
  s.executor.seed = 1;
  return s;
}

// --run: the model whole, `repeat` timed runs after one untimed one (weights packed), then each step
// timed in min(repeat, 10) runs (at least 3).
int run_model(std::map<std::string, std::string>& a) {
  Result<Setup> su = set_up(a);
  if (!su.ok()) return fail(su.status().message());
  const ir::Graph& g = su->graph;
  const runtime::ExecutorOptions& eo = su->executor;
  std::optional<runtime::StageSchedule> schedule;
  if (a.count("--schedule")) {
    Result<runtime::StageSchedule> s = runtime::read_schedule_file(a["--schedule"]);
    if (!s.ok()) return fail(s.status().message());
    schedule = std::move(*s);
  }
  Result<std::unique_ptr<runtime::Executor>> ex =
      schedule ? graphsched::load_scheduled(g, *schedule, eo) : runtime::Executor::load(g, eo);
  if (!ex.ok()) return fail(ex.status().message());
  std::mt19937_64 rng(1);
  for (size_t i = 0; i < (*ex)->num_inputs(); ++i) (*ex)->input(i).fill_random(rng);
  if (Status st = (*ex)->run(); !st.ok()) return fail(st.message());
  const int repeat = std::max(1, std::stoi(a["--repeat"]));
  std::vector<double> runs;
  for (int r = 0; r < repeat; ++r) {
    const double t0 = steady_seconds();
    if (Status st = (*ex)->run(); !st.ok()) return fail(st.message());
    runs.push_back(steady_seconds() - t0);
  }
  std::vector<std::vector<double>> per_step((*ex)->steps().size());
  for (int r = 0; r < std::max(3, std::min(repeat, 10)); ++r) {
    std::vector<double> s;
    if (Status st = (*ex)->run_timed(s); !st.ok()) return fail(st.message());
    for (size_t i = 0; i < s.size() && i < per_step.size(); ++i) per_step[i].push_back(s[i]);
  }
  nlohmann::json ops = nlohmann::json::array();
  for (size_t i = 0; i < per_step.size(); ++i)
    ops.push_back({{"name", (*ex)->steps()[i].name}, {"ms", median(per_step[i]) * 1e3}});
  nlohmann::json out{{"model", a["--model"]},
                     {"batch", g.batch()},
                     {"threads", su->threads},
                     {"device", su->device.key()},
                     {"omp_wait_policy", runtime::omp_wait_policy_name()},
                     {"latency_ms", {{"p50", median(runs) * 1e3}, {"min", *std::min_element(runs.begin(), runs.end()) * 1e3}}},
                     {"ops", ops}};
  std::puts(out.dump().c_str());
  return 0;
}

struct Search {
  std::string name;
  graphsched::Strategy strategy;
  graphsched::CostKind cost;
};

// The searches beside sequential, in the order they run. The predicted-cost search first, so that the
// stages it measures for its contention model are measured (not found in the database after the
// measured-cost searches): its time is its own.
const std::vector<Search> kSearches = {
    {"ios-both-predicted", graphsched::Strategy::kBoth, graphsched::CostKind::kPredicted},
    {"greedy", graphsched::Strategy::kGreedy, graphsched::CostKind::kMeasured},
    {"ios-both", graphsched::Strategy::kBoth, graphsched::CostKind::kMeasured},
    {"ios-merge", graphsched::Strategy::kMerge, graphsched::CostKind::kMeasured},
    {"ios-parallel", graphsched::Strategy::kParallel, graphsched::CostKind::kMeasured}};

}  // namespace

int main(int argc, char** argv) {
  // Every schedule this program times runs with the wait policy `tensorperf schedule` and `run
  // --schedule` use (runtime/omp_wait_policy.h): it may execute this program again.
  runtime::use_active_wait_policy(argv);
  std::map<std::string, std::string> a = {{"--r", "3"}, {"--s", "8"}, {"--min-gain", "0.02"}, {"--search-budget", "120"}, {"--rounds", "7"}, {"--seconds", "1"},
                                          {"--configs", "onednn"}, {"--threads", "2"}, {"--batch", "1"},
                                          {"--stage-profile", "0"}, {"--profile-runs", "0"}};
  std::vector<std::string> extras;
  bool time_only = false, warm_stages = false, run = false;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--time-only") time_only = true;
    else if (k == "--run") run = true;
    else if (k == "--warm-stages") warm_stages = true;
    else if (i + 1 >= argc) return fail("missing a value after " + k);
    else if (k == "--extra") extras.push_back(argv[++i]);
    else a[k] = argv[++i];
  }
  if (!a.count("--model") || !a.count("--db")) return fail("--model and --db are required");
  std::set<std::string> wanted;  // the searches beside sequential
  for (const Search& s : kSearches) wanted.insert(s.name);
  if (a.count("--variants")) {
    std::set<std::string> named;
    std::stringstream list(a["--variants"]);
    for (std::string name; std::getline(list, name, ',');) {
      if (!wanted.count(name))
        return fail("--variants: unknown variant '" + name +
                    "' (ios-both-predicted, greedy, ios-both, ios-merge or ios-parallel)");
      named.insert(name);
    }
    wanted = std::move(named);
  }
  if (run) {
    if (!a.count("--repeat")) a["--repeat"] = "20";
    return run_model(a);
  }
  Result<Setup> su = set_up(a);
  if (!su.ok()) return fail(su.status().message());
  const ir::Graph& g = su->graph;
  const measure::Device& device = su->device;
  const int threads = su->threads;
  const long long batch = static_cast<long long>(g.batch());

  graphsched::SchedulerOptions so;
  so.model = a["--model"];
  so.executor = su->executor;
  so.clock_mhz = device.clock_mhz;
  so.stage_timing = runtime::StageTiming::kColdFirstRun;
  if (warm_stages) so.stage_timing = runtime::StageTiming::kWarm;
  if (a.count("--stage-timing")) {
    Result<runtime::StageTiming> t = graphsched::parse_stage_timing(a["--stage-timing"]);
    if (!t.ok()) return fail(t.status().message());
    so.stage_timing = *t;
  }
  std::fprintf(stderr, "%s b%lld: loading\n", so.model.c_str(), batch);
  Result<std::unique_ptr<graphsched::Scheduler>> scheduler = graphsched::Scheduler::create(g, so);
  if (!scheduler.ok()) return fail(scheduler.status().message());

  // --save-dir/<model>_b<batch>_<variant>.json; nothing without --save-dir.
  auto save = [&](const Variant& v) {
    if (!a.count("--save-dir")) return Status::Ok();
    std::filesystem::create_directories(a["--save-dir"]);
    return runtime::write_schedule_file(a["--save-dir"] + "/" + so.model + "_b" + a["--batch"] + "_" + v.name + ".json",
                                        v.schedule);
  };
  std::vector<Variant> variants;
  std::vector<Search> searches = {{"sequential", graphsched::Strategy::kSequential, graphsched::CostKind::kMeasured}};
  if (!time_only) {
    for (const Search& s : kSearches)
      if (wanted.count(s.name)) searches.push_back(s);
  }
  std::optional<graphsched::Plan> both;  // ios-both's plan, for the profiled search
  graphsched::SearchOptions both_search;
  for (const Search& s : searches) {
    graphsched::SearchOptions search;
    search.strategy = s.strategy;
    search.threads = threads;
    search.r = std::stoi(a["--r"]);
    search.s = std::stoi(a["--s"]);
    search.min_gain = std::stod(a["--min-gain"]);
    search.time_budget_s = std::stod(a["--search-budget"]);
    const double t0 = steady_seconds();
    Result<graphsched::Plan> plan = (*scheduler)->plan(search, s.cost);
    if (!plan.ok()) return fail(s.name + ": " + plan.status().message());
    Variant v;
    v.name = s.name;
    v.schedule = plan->schedule;
    v.search_s = steady_seconds() - t0;
    v.estimated_ms = plan->search.cost_s * 1e3;
    v.measured = plan->measured;
    v.lanes = plan->search.lanes;
    v.budget_cut = plan->search.budget_cut;
    v.blocks = plan->search.blocks;
    v.blocks_unsearched = plan->search.blocks_unsearched;
    v.chains_split = plan->search.chains_split;
    std::fprintf(stderr,
                 "%s b%lld: %s searched in %.1f s (%lld stages measured, up to %d groups per stage%s, %d of %d blocks "
                 "left sequential by the budget, %d chains split), estimate %.3f ms\n",
                 so.model.c_str(), batch, s.name.c_str(), v.search_s,
                 static_cast<long long>(v.measured), v.lanes, v.budget_cut ? ", cut by the budget" : "",
                 v.blocks_unsearched, v.blocks, v.chains_split, v.estimated_ms);
    if (s.strategy != graphsched::Strategy::kSequential) {
      Status st = save(v);
      if (!st.ok()) return fail(st.message());
    }
    if (s.name == "ios-both") both = *plan, both_search = search;
    variants.push_back(std::move(v));
  }
  if (const int runs = std::stoi(a["--profile-runs"]); both && runs > 0) {
    // As `tensorperf schedule --strategy both`: ios-both's schedule and the sequential one profiled in
    // the model, and the search again with its stage costs so corrected (graphsched/in_model.h).
    const double t0 = steady_seconds();
    Result<graphsched::Plan> plan = (*scheduler)->plan_in_model(*both, both_search, runs);
    if (!plan.ok()) return fail("ios-both-profiled: " + plan.status().message());
    const graphsched::InModelFactors& f = (*scheduler)->in_model();
    Variant v;
    v.name = "ios-both-profiled";
    v.schedule = plan->schedule;
    for (const Variant& w : variants)
      if (w.name == "ios-both") v.search_s = w.search_s;
    v.search_s += steady_seconds() - t0;  // its own search needs ios-both's first
    v.estimated_ms = plan->search.cost_s * 1e3;
    v.measured = plan->measured;
    v.lanes = plan->search.lanes;
    v.budget_cut = plan->search.budget_cut;
    v.blocks = plan->search.blocks;
    v.blocks_unsearched = plan->search.blocks_unsearched;
    v.chains_split = plan->search.chains_split;
    v.concurrent_factor = f.concurrent;
    v.concurrent_fitted = f.concurrent_stages;
    v.losing_stages = f.losing_stages;
    std::fprintf(stderr,
                 "%s b%lld: ios-both-profiled: in the model sequential %.3f ms, ios-both %.3f ms; %d schedules "
                 "profiled, %d of their %d concurrent stages slower than their operators in sequence, all "
                 "%.3fx alone; searched again in %.1f s (%lld stages measured), estimate %.3f ms\n",
                 so.model.c_str(), batch, f.sequential_model_s * 1e3, f.found_model_s * 1e3,
                 f.rounds, f.losing_stages, f.concurrent_stages, f.concurrent, steady_seconds() - t0,
                 static_cast<long long>(v.measured), v.estimated_ms);
    if (Status st = save(v); !st.ok()) return fail(st.message());
    variants.push_back(std::move(v));
  }
  if (!time_only) {
    // What `tensorperf schedule --strategy both` writes: the judge's pick (graphsched/judge.h) of
    // the sequential, IOS-both, greedy, IOS-merge, IOS-parallel and predicted-cost IOS-both schedules.
    std::vector<graphsched::Candidate> candidates;
    double searched_s = 0;
    int64_t measured = 0;
    for (const char* name :
         {"sequential", "ios-both", "greedy", "ios-merge", "ios-parallel", "ios-both-predicted", "ios-both-profiled"})
      for (const Variant& v : variants)
        if (v.name == name) {
          candidates.push_back({v.name, v.schedule});
          if (v.name != "sequential") searched_s += v.search_s, measured += v.measured;
        }
    runtime::ExecutorOptions jo_exec = so.executor;
    jo_exec.progress = nullptr;
    graphsched::JudgeOptions jo;
    jo.rounds = 5;  // as `tensorperf schedule`: 3 rounds picked by noise between close candidates
    jo.runs_per_round = 3;
    const double t0 = steady_seconds();
    Result<graphsched::Verdict> verdict = graphsched::judge_schedules(g, candidates, jo_exec, jo);
    if (!verdict.ok()) return fail("judging: " + verdict.status().message());
    Variant v;
    v.name = "chosen";
    v.schedule = candidates[verdict->best].schedule;
    v.search_s = searched_s + (steady_seconds() - t0);
    v.measured = measured;
    v.chosen_from = candidates[verdict->best].name;
    v.picked = candidates[verdict->picked].name;
    v.confirm_relative = verdict->confirm_relative;
    v.confirm_wins = verdict->confirm_wins;
    v.confirm_rounds = static_cast<int>(verdict->confirm_first_ms.size());
    std::fprintf(stderr, "%s b%lld: the whole model chose %s (judged in %.1f s", so.model.c_str(), batch,
                 v.chosen_from.c_str(), steady_seconds() - t0);
    if (verdict->picked != 0)
      std::fprintf(stderr, "; %s confirmed at %.3f, %d/%d rounds: %s", v.picked.c_str(), v.confirm_relative,
                   v.confirm_wins, v.confirm_rounds, verdict->best == verdict->picked ? "kept" : "overturned");
    std::fprintf(stderr, ")\n");
    if (Status st = save(v); !st.ok()) return fail(st.message());  // what `schedule --strategy both -o` writes
    variants.push_back(std::move(v));
  }
  for (const std::string& e : extras) {
    const size_t eq = e.find('=');
    if (eq == std::string::npos) return fail("--extra takes NAME=FILE");
    Result<runtime::StageSchedule> s = runtime::read_schedule_file(e.substr(eq + 1));
    if (!s.ok()) return fail(s.status().message());
    // Another batch's schedule, applied by operator names: this graph's fingerprint, and this
    // batch's configs (the workload keys differ), i.e. the sequential variant's.
    s->graph = runtime::graph_fingerprint(g);
    s->configs = variants[0].schedule.configs;
    // Operators that exist at one batch only (a concat is a view at batch 1 and a copy at 16) are
    // dropped; the executor places this batch's own copies after their inputs.
    std::set<std::string> known((*scheduler)->ops().names.begin(), (*scheduler)->ops().names.end());
    for (const runtime::MergeSpec& m : s->merges) known.insert(m.name);
    std::vector<runtime::Stage> stages;
    for (runtime::Stage& st : s->stages) {
      runtime::Stage kept;
      for (runtime::StageGroup& grp : st.groups) {
        std::vector<std::string> ops;
        for (const std::string& op : grp.ops)
          if (known.count(op)) ops.push_back(op);
        if (!ops.empty()) kept.groups.push_back(runtime::StageGroup{grp.threads, ops});
      }
      if (!kept.groups.empty()) stages.push_back(std::move(kept));
    }
    s->stages = std::move(stages);
    Variant v;
    v.name = e.substr(0, eq);
    v.schedule = *s;
    variants.push_back(std::move(v));
  }
  runtime::ExecutorOptions eo = so.executor;
  eo.progress = nullptr;
  std::mt19937_64 rng(3);
  for (size_t k = 0; k < variants.size(); ++k)
    for (size_t j = 0; j < k && variants[k].same_as.empty(); ++j)
      if (variants[j].same_as.empty() && same_schedule(variants[k].schedule, variants[j].schedule))
        variants[k].same_as = variants[j].name;
  for (Variant& v : variants) {
    if (!v.same_as.empty()) continue;  // timed once, as the earlier variant: two copies would time noise
    Result<std::unique_ptr<runtime::Executor>> e = graphsched::load_scheduled(g, v.schedule, eo);
    if (!e.ok()) return fail(v.name + ": " + e.status().message());
    v.executor = std::move(*e);
    for (size_t i = 0; i < v.executor->num_inputs(); ++i) v.executor->input(i).fill_random(rng);
  }
  const int rounds = std::stoi(a["--rounds"]);
  const double seconds = std::stod(a["--seconds"]);
  for (int r = 0; r < rounds; ++r) {
    for (size_t k = 0; k < variants.size(); ++k) {
      Variant& v = variants[(k + r) % variants.size()];
      if (!v.same_as.empty()) continue;
      std::vector<double> runs;
      const double start = steady_seconds();
      while (runs.size() < 3 || (steady_seconds() - start < seconds && runs.size() < 1000)) {
        const double t0 = steady_seconds();
        Status st = v.executor->run();
        if (!st.ok()) return fail(v.name + ": " + st.message());
        runs.push_back((steady_seconds() - t0) * 1e3);
      }
      v.rounds_ms.push_back(median(runs));
    }
    std::string times;
    for (const Variant& v : variants)
      if (v.same_as.empty()) times += " " + v.name + " " + std::to_string(v.rounds_ms.back()).substr(0, 7);
    std::fprintf(stderr, "%s b%lld: round %d of %d (at %.1f s, ms:%s)\n", so.model.c_str(),
                 batch, r + 1, rounds, steady_seconds(), times.c_str());
  }
  for (Variant& v : variants)
    for (const Variant& w : variants)
      if (v.same_as == w.name) v.rounds_ms = w.rounds_ms;
  nlohmann::json out{{"model", so.model}, {"batch", batch}, {"threads", threads}, {"device", device.key()},
                     {"omp_wait_policy", runtime::omp_wait_policy_name()},
                     {"operators", (*scheduler)->ops().size()}};
  for (const Variant& v : variants) {
    int concurrent = 0, merged = static_cast<int>(v.schedule.merges.size());
    for (const runtime::Stage& st : v.schedule.stages) concurrent += st.groups.size() > 1;
    out["variants"].push_back({{"name", v.name},
                               {"search_s", v.search_s},
                               {"stages_measured", v.measured},
                               {"lanes", v.lanes},
                               {"budget_cut", v.budget_cut},
                               {"blocks", v.blocks},
                               {"blocks_unsearched", v.blocks_unsearched},
                               {"chains_split", v.chains_split},
                               {"estimated_ms", v.estimated_ms},
                               {"latency_ms", median(v.rounds_ms)},
                               {"rounds_ms", v.rounds_ms},
                               {"stages", v.schedule.stages.size()},
                               {"concurrent", concurrent},
                               {"merged", merged},
                               {"chosen_from", v.chosen_from},
                               {"same_as", v.same_as}});
    if (v.name == "chosen") {
      out["variants"].back()["picked"] = v.picked;
      out["variants"].back()["confirm_relative"] = v.confirm_relative;
      out["variants"].back()["confirm_wins"] = v.confirm_wins;
      out["variants"].back()["confirm_rounds"] = v.confirm_rounds;
    }
    if (v.concurrent_fitted > 0) {
      out["variants"].back()["concurrent_factor"] = v.concurrent_factor;
      out["variants"].back()["concurrent_fitted"] = v.concurrent_fitted;
      out["variants"].back()["losing_stages"] = v.losing_stages;
    }
  }
  if (const int runs = std::stoi(a["--stage-profile"]); runs > 0)
    for (Variant& v : variants) {
      if (!v.same_as.empty()) continue;
      std::fprintf(stderr, "%s b%lld: profiling %s's stages\n", so.model.c_str(), batch,
                   v.name.c_str());
      Result<nlohmann::json> p = profile_stages(v, **scheduler, runs, threads);
      if (!p.ok()) return fail(v.name + ": profiling its stages: " + p.status().message());
      out["variants"][&v - variants.data()]["stage_profile"] = std::move(*p);
    }
  std::puts(out.dump().c_str());
  return 0;
}
