// `tensorperf graph`: a model's operator graph as a summary table or Graphviz DOT.
#include <cstdio>
#include <fstream>
#include <map>

#include "base/atomic_file.h"
#include "cli/command.h"
#include "cli/exit.h"
#include "cli/model_source.h"
#include "cli/table.h"
#include "ir/graph_dot.h"

namespace tensorperf::cli {

namespace {

struct GraphOptions {
  ModelSource source;
  bool dot = false;
  std::string out;
};

void run_graph(const GraphOptions& o) {
  ir::Graph g = o.source.load();
  std::string text;
  if (o.dot) {
    text = ir::to_dot(g);
  } else {
    std::map<std::string, int> counts;
    for (const auto& n : g.nodes()) ++counts[std::string(ir::op_name(n.op))];
    Table t({{"op"}, {"nodes", Align::kRight}});
    for (const auto& [op, c] : counts) t.add_row({op, std::to_string(c)});
    t.add_footer({"total", std::to_string(g.nodes().size())});
    text = t.render();
  }
  if (o.out.empty()) {
    std::fputs(text.c_str(), stdout);
    return;
  }
  AtomicFile f = check(AtomicFile::create(o.out));
  f.stream() << text;
  check(f.commit());
}

}  // namespace

void register_graph_command(CLI::App& app) {
  static GraphOptions o;
  auto* cmd = app.add_subcommand("graph", "show a model's operator graph (op counts, or Graphviz DOT with --dot)");
  o.source.add_options(cmd);
  cmd->add_flag("--dot", o.dot, "write Graphviz DOT (render with `dot -Tsvg`)");
  cmd->add_option("-o,--out", o.out, "write to this file instead of standard output");
  cmd->callback([] { run_graph(o); });
}

}  // namespace tensorperf::cli
