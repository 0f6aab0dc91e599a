// `tensorperf schedule`: inter-operator scheduling (IOS) of a model on this machine: searches which
// operators run concurrently and which merge, prints the stages, the schedule's latency next to the
// sequential one's (and, for `both`, the greedy baseline's: all run here, interleaved) and the
// search's time, and writes the sequential schedule unless another clearly beat it
// (graphsched/judge.h) for `tensorperf run --schedule`.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "cli/command.h"
#include "cli/exit.h"
#include "cli/model_source.h"
#include "cli/table.h"
#include "cli/validators.h"
#include "db/record_store.h"
#include "graphsched/judge.h"
#include "graphsched/scheduler.h"
#include "measure/device.h"
#include "runtime/omp_wait_policy.h"

namespace tensorperf::cli {
namespace {

struct ScheduleOptions {
  ModelSource source;
  int threads = 0;
  std::string isa = "native";
  std::string strategy = "both";
  int r = 3;
  int s = 8;
  int max_block = 24;
  double min_gain = 0.02;
  double search_budget_s = 120;
  std::string cost = "measured";
  std::string output;
  std::string plot_spec;
  bool keep_slower = false;
  bool warm_stages = false;
  std::string stage_timing = "cold-first-run";
  std::string db = "tensorperf.db";
  std::string configs = "db";
  int repeat = 20;
  int profile_runs = 0;
  bool json = false;
};

std::string group_text(const runtime::StageGroup& g) {
  std::string ops;
  for (size_t i = 0; i < g.ops.size(); ++i) ops += (i ? " > " : "") + g.ops[i];
  return fmt::format("[{}t] {}", g.threads, ops);
}

// A Gantt chart spec for scripts/plot.py: one row per thread, each stage from its start for its
// cost, each group's operators one after another on the group's threads (their own costs at that
// thread count, scaled down when they add up to more than the stage took).
void write_gantt(const std::string& path, graphsched::Scheduler& scheduler, const graphsched::Plan& plan, int threads,
                 const std::string& model) {
  nlohmann::json rows = nlohmann::json::array(), bars = nlohmann::json::array();
  for (int t = 0; t < threads; ++t) rows.push_back("thread " + std::to_string(t));
  double start = 0;
  for (const graphsched::StageChoice& c : plan.search.stages) {
    const double stage_ms = c.cost_s * 1e3;
    int row = 0;
    for (size_t k = 0; k < c.groups.size(); ++k) {
      std::vector<double> ms;
      double sum = 0;
      if (c.merged) {
        ms = {stage_ms};
        sum = stage_ms;
      } else {
        for (int op : c.groups[k]) {
          ms.push_back(check(scheduler.op_cost(op, c.threads[k])) * 1e3);
          sum += ms.back();
        }
      }
      const double scale = sum > stage_ms && sum > 0 ? stage_ms / sum : 1.0;
      for (int t = row; t < row + c.threads[k] && t < threads; ++t) {
        double at = start;
        for (size_t i = 0; i < ms.size(); ++i) {
          const char* color = c.merged ? "#c44e52" : c.groups.size() == 1 ? "#8da0cb" : k == 0 ? "#fc8d62" : "#66c2a5";
          bars.push_back({{"row", rows[t]}, {"start", at}, {"end", at + ms[i] * scale}, {"label", ""}, {"color", color}});
          at += ms[i] * scale;
        }
      }
      row += c.threads[k];
    }
    start += stage_ms;
  }
  nlohmann::json spec{{"title", model + ": " + std::to_string(plan.search.stages.size()) + " stages, " +
                                    fmt::format("{:.2f}", start) + " ms estimated"},
                      {"kind", "gantt"},
                      {"xlabel", "ms"},
                      {"rows", rows},
                      {"bars", bars},
                      {"legend",
                       {{"one group (all threads)", "#8da0cb"},
                        {"concurrent: first group", "#fc8d62"},
                        {"concurrent: other groups", "#66c2a5"},
                        {"merged convolutions", "#c44e52"}}}};
  auto file = check(AtomicFile::create(path));
  file.stream() << spec.dump() << "\n";
  check(file.commit());
}

void run_schedule(const ScheduleOptions& o) {
  const graphsched::Strategy strategy = check(graphsched::parse_strategy(o.strategy));
  const graphsched::CostKind cost = check(graphsched::parse_cost_kind(o.cost));
  const ir::Graph g = o.source.load();
  measure::DeviceOptions device_options;
  device_options.threads = o.threads > 0 ? o.threads : static_cast<int>(measure::pinned_cpus(1 << 16).size());
  device_options.isa = o.isa;
  const measure::Device device = check(measure::detect_device(device_options));
  std::unique_ptr<db::RecordStore> store = check(db::open_store(o.db, db::OpenMode::kCreate));
  auto say = [&](std::string_view line) {
    if (!o.json) std::fprintf(stderr, "%.*s\n", static_cast<int>(line.size()), line.data());
  };

  graphsched::SchedulerOptions so;
  so.model = o.source.name();
  so.executor.policy = check(runtime::parse_policy(o.configs));
  if (so.executor.policy == runtime::ConfigPolicy::kReference)
    throw CommandFailed("--configs reference has no kernels to schedule; use db, onednn or halide", kExitUsage);
  so.executor.store = store.get();
  so.executor.device_key = device.key();
  so.clock_mhz = device.clock_mhz;
  so.executor.target = device.target;
  so.executor.threads = device.threads;
  so.executor.seed = o.source.seed;
  so.stage_timing = o.warm_stages ? runtime::StageTiming::kWarm : check(graphsched::parse_stage_timing(o.stage_timing));
  so.executor.progress = say;
  say("loading the profiling executor");
  std::unique_ptr<graphsched::Scheduler> scheduler = check(graphsched::Scheduler::create(g, so));
  say(fmt::format("searching: {} operators, strategy {}, r={} s={}, {} costs", scheduler->ops().size(), o.strategy,
                  o.r, o.s, o.cost));
  graphsched::SearchOptions search;
  search.strategy = strategy;
  search.r = o.r;
  search.s = o.s;
  search.max_block = o.max_block;
  search.threads = device.threads;
  search.min_gain = o.min_gain;
  search.time_budget_s = o.search_budget_s;
  graphsched::Plan plan = check(scheduler->plan(search, cost));
  say(fmt::format("search: {:.1f} s ({:.1f} s running stages, {:.1f} s storing them), {} stages measured, {} from "
                  "the database",
                  plan.search.search_s, plan.timing_s, plan.storing_s, plan.measured, plan.from_store));
  if (cost == graphsched::CostKind::kPredicted)
    say(fmt::format("predicted costs: a concurrent stage costs {:.3f} x its longest group + {:.3f} x its operators' "
                    "serial time (fitted on {} measured concurrent stages)",
                    scheduler->contention().scale, scheduler->contention().shared, scheduler->contention_samples()));

  // The whole model judges (graphsched/judge.h): the sequential schedule, the found one and, for
  // `both`, the greedy baseline's (stages of more independent operators than threads, which the
  // DP's stages cannot hold), merge's, parallel's, the predicted-cost one's and the profiled one's,
  // loaded for real, checked for equal outputs and timed in turns.
  runtime::ExecutorOptions eo = so.executor;
  eo.progress = nullptr;
  auto like_found = [&](runtime::StageSchedule s) {
    s.model = plan.schedule.model;
    s.batch = plan.schedule.batch;
    s.device = plan.schedule.device;
    s.graph = plan.schedule.graph;
    s.configs = plan.schedule.configs;  // every candidate runs the kernels the search measured
    return s;
  };
  std::vector<graphsched::Candidate> candidates;
  candidates.push_back({"sequential", like_found(runtime::sequential_schedule(scheduler->ops().names, device.threads))});
  candidates.push_back({"found", plan.schedule});
  if (strategy == graphsched::Strategy::kBoth) {
    // The narrower searches' stages are the found one's (measured costs: all in the database by
    // now), yet the model often ranks their schedules otherwise than the stage costs did; the
    // predicted-cost search composes costs instead of measuring, and errs elsewhere.
    auto also = [&](const char* name, graphsched::Strategy st, graphsched::CostKind kind) {
      graphsched::SearchOptions other = search;
      other.strategy = st;
      candidates.push_back({name, like_found(check(scheduler->plan(other, kind)).schedule)});
    };
    also("greedy", graphsched::Strategy::kGreedy, cost);
    also("merge", graphsched::Strategy::kMerge, cost);
    also("parallel", graphsched::Strategy::kParallel, cost);
    if (cost == graphsched::CostKind::kMeasured) {
      also("predicted", graphsched::Strategy::kBoth, graphsched::CostKind::kPredicted);
      // The found schedule and the sequential one profiled in the model, and the search run again
      // with its stage costs corrected by what the profiles say (graphsched/in_model.h).
      if (o.profile_runs > 0) {
        say("profiling the found and the sequential schedule in the model");
        graphsched::Plan profiled = check(scheduler->plan_in_model(plan, search, o.profile_runs));
        const graphsched::InModelFactors& f = scheduler->in_model();
        if (f.concurrent_stages > 0) {
          say(fmt::format("in the model: sequential {:.3f} ms, found {:.3f} ms; {} schedules profiled, {} of their "
                          "{} concurrent stages slower than their operators in sequence, all {:.3f}x their "
                          "time alone; searched again in {:.1f} s: {:.3f} ms estimated",
                          f.sequential_model_s * 1e3, f.found_model_s * 1e3, f.rounds, f.losing_stages,
                          f.concurrent_stages, f.concurrent,
                          profiled.search.search_s, profiled.search.cost_s * 1e3));
          candidates.push_back({"profiled", like_found(profiled.schedule)});
        }
      }
    }
  }
  say(fmt::format("judging {} schedules on the whole model", candidates.size()));
  graphsched::JudgeOptions jo;
  jo.rounds = 5;
  jo.runs_per_round = std::max(1, o.repeat / jo.rounds);
  const graphsched::Verdict verdict = check(graphsched::judge_schedules(g, candidates, eo, jo));
  const int rounds = jo.rounds;
  const double max_diff = verdict.max_output_difference;
  const double seq_ms = verdict.latency_ms[0], sched_ms = verdict.latency_ms[1];
  if (!o.plot_spec.empty()) write_gantt(o.plot_spec, *scheduler, plan, device.threads, o.source.name());
  // The file gets the judge's pick (the sequential schedule unless another clearly beat it, twice), unless
  // --keep-slower (the found one, always).
  const size_t chosen = o.keep_slower ? 1 : verdict.best;
  runtime::StageSchedule out = candidates[chosen].schedule;
  out.latency_ms = verdict.latency_ms[chosen];
  out.sequential_ms = seq_ms;
  if (!o.output.empty()) check(runtime::write_schedule_file(o.output, out));
  const std::string written = candidates[chosen].name;

  int concurrent = 0, merged = 0;
  for (size_t i = 0; i < plan.search.stages.size(); ++i) {
    concurrent += plan.search.stages[i].groups.size() > 1;
    merged += plan.search.stages[i].merged;
  }
  nlohmann::json candidates_ms = nlohmann::json::object(), candidates_relative = nlohmann::json::object(),
                 candidates_wins = nlohmann::json::object();
  for (size_t k = 0; k < candidates.size(); ++k) {
    candidates_ms[candidates[k].name] = verdict.latency_ms[k];
    candidates_relative[candidates[k].name] = verdict.relative[k];
    candidates_wins[candidates[k].name] = verdict.wins[k];
  }
  if (o.json) {
    nlohmann::json j{{"model", o.source.name()},
                     {"batch", g.batch()},
                     {"device", device.key()},
                     {"threads", device.threads},
                     {"omp_wait_policy", runtime::omp_wait_policy_name()},
                     {"strategy", o.strategy},
                     {"r", o.r},
                     {"s", o.s},
                     {"cost", o.cost},
                     {"operators", scheduler->ops().size()},
                     {"stages", plan.search.stages.size()},
                     {"concurrent_stages", concurrent},
                     {"merged_stages", merged},
                     {"search_s", plan.search.search_s},
                     {"states", plan.search.states},
                     {"search_lanes", plan.search.lanes},
                     {"search_budget_cut", plan.search.budget_cut},
                     {"search_blocks", plan.search.blocks},
                     {"search_blocks_unsearched", plan.search.blocks_unsearched},
                     {"search_chains_split", plan.search.chains_split},
                     {"stages_measured", plan.measured},
                     {"stages_from_db", plan.from_store},
                     {"estimated_ms", plan.search.cost_s * 1e3},
                     {"sequential_estimated_ms", plan.sequential_estimate_s * 1e3},
                     {"latency_ms", sched_ms},
                     {"sequential_ms", seq_ms},
                     {"speedup", sched_ms > 0 ? seq_ms / sched_ms : 0.0},
                     {"max_output_difference", max_diff},
                     {"written", o.output.empty() ? "" : written},
                     {"chosen", written},
                     {"chosen_ms", verdict.latency_ms[chosen]},
                     {"chosen_stages", out.stages.size()},
                     {"candidates_ms", candidates_ms},
                     {"candidates_relative", candidates_relative},
                     {"candidates_wins", candidates_wins},
                     {"rounds", rounds},
                     {"picked", candidates[verdict.picked].name},
                     {"confirm_rounds", verdict.confirm_first_ms.size()},
                     {"confirm_relative", verdict.confirm_relative},
                     {"confirm_wins", verdict.confirm_wins},
                     {"schedule", runtime::schedule_to_json(out)}};
    std::puts(j.dump(2).c_str());
    return;
  }
  Table table({{"stage", Align::kRight}, {"kind"}, {"est ms", Align::kRight}, {"groups", Align::kLeft, 110}});
  for (size_t i = 0; i < plan.search.stages.size(); ++i) {
    const graphsched::StageChoice& c = plan.search.stages[i];
    const runtime::Stage& st = plan.schedule.stages[i];
    std::string groups;
    for (size_t k = 0; k < st.groups.size(); ++k) groups += (k ? "  |  " : "") + group_text(st.groups[k]);
    const std::string kind = c.merged ? "merged" : c.groups.size() > 1 ? "concurrent" : "single";
    table.add_row({std::to_string(i), kind, fmt::format("{:.3f}", c.cost_s * 1e3), groups});
  }
  table.print();
  std::printf("\n%s at batch %lld on %s, %d threads: %zu operators in %zu stages (%d concurrent, %d merged)\n",
              o.source.name().c_str(), static_cast<long long>(g.batch()), device.key().c_str(), device.threads,
              static_cast<size_t>(scheduler->ops().size()), plan.search.stages.size(), concurrent, merged);
  std::printf("search     %.2f s (%s costs, strategy %s, r=%d s=%d): %lld stages measured, %lld from the database, "
              "%lld states\n",
              plan.search.search_s, o.cost.c_str(), o.strategy.c_str(), o.r, o.s, static_cast<long long>(plan.measured),
              static_cast<long long>(plan.from_store), static_cast<long long>(plan.search.states));
  if (plan.search.budget_cut)
    std::printf("           the %g s budget stopped the search at %d groups per stage (of min(s, threads) = %d); "
                "%d of %d blocks kept their operators' own stages\n",
                o.search_budget_s, plan.search.lanes, std::min(o.s, device.threads), plan.search.blocks_unsearched,
                plan.search.blocks);
  std::printf("estimate   %.3f ms (sequential %.3f ms)\n", plan.search.cost_s * 1e3, plan.sequential_estimate_s * 1e3);
  std::printf("latency    %.3f ms   sequential %.3f ms   speedup %.3fx   (medians of %d interleaved rounds)\n", sched_ms,
              seq_ms, sched_ms > 0 ? seq_ms / sched_ms : 0.0, rounds);
  std::string judged;
  for (size_t k = 0; k < candidates.size(); ++k)
    judged += fmt::format("{}{} {:.3f} ms ({:.3f}, {}/{})", k ? ", " : "", candidates[k].name, verdict.latency_ms[k],
                          verdict.relative[k], verdict.wins[k], rounds);
  std::printf("judged     %s: keeps %s (in parentheses: the median per-round ratio to sequential, rounds won; "
              "sequential stays unless another wins by %.0f%% in %.0f%% of the rounds)\n",
              judged.c_str(), candidates[verdict.best].name.c_str(), jo.margin * 100, jo.min_wins * 100);
  if (verdict.picked != 0)
    std::printf("confirmed  %s against sequential alone in %zu more rounds: %.3f, %d/%zu: %s\n",
                candidates[verdict.picked].name.c_str(), verdict.confirm_first_ms.size(), verdict.confirm_relative,
                verdict.confirm_wins, verdict.confirm_first_ms.size(),
                verdict.best == verdict.picked ? "kept" : "not clear again, sequential stays");
  std::printf("outputs    max relative difference to the sequential run %.2g\n", max_diff);
  if (!o.output.empty())
    std::printf("schedule   %s: the %s schedule%s (run it: tensorperf run ... --schedule %s)\n", o.output.c_str(),
                written.c_str(),
                chosen != 1 ? ", as the judge kept it over the found one (--keep-slower writes the found one)" : "",
                o.output.c_str());
}

}  // namespace

void register_schedule_command(CLI::App& app) {
  static ScheduleOptions o;
  auto* cmd = app.add_subcommand("schedule",
                                 "inter-operator scheduling (IOS): which operators run concurrently and which merge");
  cmd->footer(
      "Runs with libgomp's active wait policy (OMP_WAIT_POLICY=active GOMP_SPINCOUNT=300000, unless either is "
      "set; TENSORPERF_OMP_WAIT_POLICY=default keeps libgomp's own), as `run --schedule` does: docs/runtime.md, "
      "Threads.");
  o.source.add_options(cmd, "--graph-seed");
  cmd->add_option("--threads", o.threads, "threads the stages share (default: every CPU available)")->check(positive());
  cmd->add_option("--isa", o.isa, "ISA level to compile for: native, sse41, avx2, avx512")->capture_default_str();
  cmd->add_option("--strategy", o.strategy, "sequential, greedy, parallel, merge or both")
      ->check(CLI::IsMember({"sequential", "greedy", "parallel", "merge", "both"}))
      ->capture_default_str();
  cmd->add_option("--r", o.r, "pruning: operators (chains, in regions longer than a block) per group")->check(positive())->capture_default_str();
  cmd->add_option("--s", o.s, "pruning: groups per stage (a state's wide stage of all its sinks packs them onto min(s, threads) lanes)")->check(positive())->capture_default_str();
  cmd->add_option("--max-block", o.max_block,
                  "pruning: operators per block (a longer region between cuts is searched over its chains, and cut into blocks where the fewest edges cross the cuts in all if still longer; at most 64)")
      ->check(CLI::Range(2, 64))
      ->capture_default_str();
  cmd->add_option("--min-gain", o.min_gain,
                  "a stage of concurrent groups, or a merged one, must gain at least this fraction of its cost "
                  "over the stages it replaces (0: any gain, as IOS)")
      ->check(CLI::Range(0.0, 0.5))
      ->capture_default_str();
  cmd->add_option("--search-budget", o.search_budget_s,
                  "seconds each search may take (0: no limit): each block is searched with at most 2 groups per "
                  "stage within its share of the budget (else it keeps its operators' own stages), then with 4, "
                  "... up to min(s, threads) while time is left, keeping the deepest search that finished")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str();
  cmd->add_option("--cost", o.cost,
                  "measured (each candidate stage run here, cached in the database) or predicted (composed from "
                  "each operator's own time)")
      ->check(CLI::IsMember({"measured", "predicted"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", o.output, "write the schedule (JSON) for `tensorperf run --schedule`");
  CLI::Option* timing = cmd->add_option("--stage-timing", o.stage_timing,
                  "what the caches hold when a measured stage (or operator) runs: cold-first-run (its inputs and "
                  "outputs evicted before each timing, as in a whole run at a large batch; a stage under 1 ms is "
                  "timed as the mean of runs whose first only is cold), cold (evicted before every one of those "
                  "runs) or warm (left by the previous run); each rule's costs are cached apart")
      ->check(CLI::IsMember({"cold", "cold-first-run", "warm"}))
      ->capture_default_str();
  cmd->add_flag("--warm-stages", o.warm_stages, "the same as --stage-timing warm")->excludes(timing);
  cmd->add_flag("--keep-slower", o.keep_slower,
                "write the found schedule whatever the final check on the whole model says (by default it writes the "
                "sequential one unless a candidate clearly beat it: the found one; for --strategy both also greedy's, "
                "merge's, parallel's, the predicted-cost one, the profiled one, and beat it clearly again alone against "
                "it in 5 confirmation rounds)");
  cmd->add_option("--plot-spec", o.plot_spec,
                  "write a Gantt chart spec of the schedule (threads over time) for scripts/plot.py SPEC OUT.png");
  cmd->add_option("--db", o.db, "the database of tuned configs and measured stages (SQLite path or postgresql:// URL)")
      ->capture_default_str();
  cmd->add_option("--configs", o.configs,
                  "db (tuned, else the closest device's, else the faster default, as `run` chooses), onednn or halide "
                  "(defaults only: the same kernels every time, so a second search measures nothing)")
      ->check(CLI::IsMember({"db", "onednn", "halide"}))
      ->capture_default_str();
  cmd->add_option("--profile-runs", o.profile_runs,
                  "for --strategy both with measured costs: runs of the found and the sequential schedule with "
                  "their stages timed in the model, whose ratios to the stages alone correct the costs of a "
                  "second search, one more candidate for the final check (0: none; on the 2-core AMD host of "
                  "2026-12-02 it did not beat the found schedule: docs/graphsched.md)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--repeat", o.repeat, "timed whole runs of each candidate schedule in the final check")->check(positive())->capture_default_str();
  cmd->add_flag("--json", o.json,
                "print one JSON object {model, batch, device, threads, omp_wait_policy, strategy, search_s, stages_measured, "
                "latency_ms, sequential_ms, speedup, schedule}");
  cmd->callback([] { run_schedule(o); });
}

}  // namespace tensorperf::cli
