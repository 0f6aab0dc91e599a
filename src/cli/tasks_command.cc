// `tensorperf tasks`: a model's distinct workloads with counts and FLOPs (TVM's task extraction).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/exit.h"
#include "cli/model_source.h"
#include "cli/table.h"
#include "ir/task_extraction.h"

namespace tensorperf::cli {

namespace {

struct TasksOptions {
  ModelSource source;
  bool json = false;
};

void run_tasks(const TasksOptions& o) {
  ir::Graph g = o.source.load();
  auto tasks = check(ir::extract_tasks(g));
  double total = 0;
  for (const auto& t : tasks) total += t.total_flops();
  if (o.json) {
    nlohmann::json out{{"model", o.source.name()}, {"batch", g.batch()}, {"total_flops", total}, {"tasks", nlohmann::json::array()}};
    for (const auto& t : tasks)
      out["tasks"].push_back({{"key", t.workload.key()},
                              {"op", std::string(ir::op_name(t.workload.op))},
                              {"count", t.count},
                              {"flops", t.workload.flops()}});
    std::puts(out.dump(2).c_str());
    return;
  }
  Table table({{"#", Align::kRight},
               {"op"},
               {"count", Align::kRight},
               {"GFLOP each", Align::kRight},
               {"GFLOP total", Align::kRight},
               {"share", Align::kRight},
               {"workload key"}});
  int64_t instances = 0;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const auto& t = tasks[i];
    instances += t.count;
    table.add_row({std::to_string(i + 1), std::string(ir::op_name(t.workload.op)), std::to_string(t.count),
                   fmt::format("{:.4f}", t.workload.flops() / 1e9), fmt::format("{:.4f}", t.total_flops() / 1e9),
                   fmt::format("{:.1f}%", total > 0 ? 100 * t.total_flops() / total : 0.0), t.workload.key()});
  }
  table.add_footer({"", "total", std::to_string(instances), "", fmt::format("{:.4f}", total / 1e9), "100.0%",
                    fmt::format("{} tasks, {} at batch {}", tasks.size(), o.source.name(), g.batch())});
  table.print();
}

}  // namespace

void register_tasks_command(CLI::App& app) {
  static TasksOptions o;
  auto* cmd = app.add_subcommand("tasks", "list a model's distinct workloads (tasks) with counts and FLOPs");
  o.source.add_options(cmd);
  cmd->add_flag("--json", o.json,
                "print one JSON object {model, batch, total_flops, tasks: [{key, op, count, flops}]}; "
                "flops are per instance, a multiply-add counts 2");
  cmd->callback([] { run_tasks(o); });
}

}  // namespace tensorperf::cli
