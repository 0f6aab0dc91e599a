// The operator DAG that inter-operator scheduling works on: a model's operators as the executor runs
// them (its steps, runtime::Executor::steps()), with each one's predecessors, split into blocks.
// Operators are numbered in the executor's sequential order, which is topological.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "runtime/executor.h"

namespace tensorperf::graphsched {

struct OpGraph {
  std::vector<std::string> names;      // the executor's step names
  std::vector<std::string> kinds;      // op kind of each ("conv2d", "concat", ...)
  std::vector<std::string> workloads;  // workload key; empty for layout steps
  std::vector<std::vector<int>> preds, succs;
  std::string fingerprint;  // of the graph it came from (runtime::graph_fingerprint), when known

  int size() const { return static_cast<int>(names.size()); }

  static OpGraph from_executor(const runtime::Executor& e);
  // A graph of `n` operators named "op0"... with the given edges (from, to), from < to; for tests.
  static Result<OpGraph> from_edges(int n, const std::vector<std::pair<int, int>>& edges);
};

// Splits the operators into blocks, each a range of consecutive operators, at cut operators: an
// operator that every earlier operator reaches and that reaches every later one (IOS's blocks). A
// range longer than `max_block` is cut into the fewest blocks that fit, where the fewest edges cross
// the cuts (the schedule can no longer overlap operators across a cut), as evenly as that allows.
std::vector<std::vector<int>> partition_blocks(const OpGraph& g, int max_block);

// `g` with its long chains contracted, for a search that must otherwise cut wide regions into many
// blocks: in each range between cut operators (as partition_blocks finds them) of more than
// `max_block` operators, every maximal chain (an operator whose only successor has it as its only
// predecessor, and so on) becomes one unit. Elsewhere each operator is its own unit, so ranges that
// fit a block keep their operators apart (e.g. for merging). Units are numbered by their first
// operator, which keeps the order topological; `members[u]` lists unit u's operators in order, and
// the units' names, kinds and workloads are their first operator's.
struct Contraction {
  OpGraph units;
  std::vector<std::vector<int>> members;
  int contracted = 0;  // operators that joined another's unit (0: the units are the operators)
};
Contraction contract_long_chains(const OpGraph& g, int max_block);

}  // namespace tensorperf::graphsched
