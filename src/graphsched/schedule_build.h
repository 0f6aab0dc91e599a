// From a search result to the stage schedule the executor runs (runtime/stage_schedule.h), and the
// operator list a schedule with merges runs on.
#pragma once

#include <string>
#include <vector>

#include "graphsched/ios_search.h"
#include "graphsched/op_graph.h"
#include "runtime/stage_schedule.h"

namespace tensorperf::graphsched {

// The schedule of `r` (stages in order; a merged stage becomes a merge named "merge:a+b+..." and a
// stage running it on all threads). Model, device, batch and fingerprint are the caller's to set.
runtime::StageSchedule make_schedule(const OpGraph& g, const SearchResult& r, int threads);

// The operators of `g` once `s`'s merges are applied: each merge's members become one operator
// (where its first member was) with the members' predecessors; others keep theirs.
struct MergedOps {
  std::vector<std::string> names;
  std::vector<std::vector<int>> preds;
};
Result<MergedOps> merged_ops(const OpGraph& g, const runtime::StageSchedule& s);

}  // namespace tensorperf::graphsched
