// The features of one program (workload, config) for learned cost models: for Halide configs, one
// row per leaf of the lowered loop nest with its place in the loop tree (for sequence models) and a
// pooled fixed-length vector (for models that want one); for configs without a loop nest (oneDNN),
// the pooled vector alone, from the workload's shapes and the knobs. The sample's kind says which.
#pragma once

#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "ir/workload.h"
#include "kernels/loop_nest.h"
#include "kernels/provider.h"

namespace tensorperf::features {

enum class SampleKind { kLoopNest, kKnobs };
const char* sample_kind_name(SampleKind kind);  // "loop_nest", "knobs"

struct LeafPosition {
  int preorder = 0;         // over loops and leaves together
  int depth = 0;            // enclosing loops
  int parent_preorder = -1; // the innermost enclosing loop's pre-order index (-1: none)
};

struct ProgramFeatures {
  SampleKind kind = SampleKind::kKnobs;
  std::vector<std::vector<float>> leaves;  // leaf_feature_names() columns; empty for kKnobs
  std::vector<LeafPosition> positions;     // one per leaf
  std::vector<float> pooled;               // pooled_feature_names() columns, for every kind
};

// Pooled columns: is_loop_nest | workload | knobs | nest totals | the hottest leaf (most flops) |
// the mean over leaves. The loop-nest parts are zeros for kKnobs samples.
const std::vector<std::string>& pooled_feature_names();

// Leaves, positions and the pooled loop-nest part of a lowered program (the workload and knob
// columns stay zero).
ProgramFeatures loop_nest_features(const kernels::LoopNest& nest);

// Features of (workload, config) for a Halide target string ("host", or e.g. one of a device's
// targets): lowers Halide configs (no machine code), reads the knobs of the others. Errors: what
// kernels::lower and the provider's validation report.
// `chained`: the program as a graph chains it, its activation input and output in its native
// layout (the "config.chained_io" column; knob_features.h).
Result<ProgramFeatures> program_features(const ir::Workload& w, const kernels::Config& config,
                                         const std::string& target = "host", bool chained = false);

// The features of many programs: the same as program_features of each, with Halide configs lowered
// in a few forked workers rather than in one each (a crash in Halide costs one program an error).
struct ProgramRef {
  ir::Workload workload;
  kernels::Config config;
  std::string target = "host";
  bool chained = false;
};
std::vector<Result<ProgramFeatures>> program_features(std::span<const ProgramRef> programs);

// {"kind", "pooled": {name: value}, "leaves": [{"position": {...}, "features": {name: value}}]}.
nlohmann::json program_features_to_json(const ProgramFeatures& f);

}  // namespace tensorperf::features
