// Per-leaf (per-store) features of a loop nest, in groups of one file each, listed in one table
// (leaf_features.cc). Every group appends a fixed number of values, so a leaf's row has the same
// length for every program: leaf_feature_names().size().
#pragma once

#include <string>
#include <vector>

#include "features/leaf_context.h"

namespace tensorperf::features {

struct LeafFeatureGroup {
  const char* name;
  std::vector<std::string> names;
  void (*extract)(const LeafContext& ctx, std::vector<float>& out);  // appends names.size() values
};

// The groups (one file each).
const LeafFeatureGroup& arithmetic_features();  // operation counts by type
const LeafFeatureGroup& loop_features();        // the loop nest around the leaf
const LeafFeatureGroup& buffer_features();      // per buffer: footprint, cache lines, reuse, stride
const LeafFeatureGroup& intensity_features();   // arithmetic intensity, allocations, outer extents

const std::vector<const LeafFeatureGroup*>& leaf_feature_groups();
const std::vector<std::string>& leaf_feature_names();
std::vector<float> leaf_features(const LeafContext& ctx);

// Scalar floating-point operations of the leaf over all its executions (an fma counts two).
double leaf_flops(const LeafContext& ctx);

}  // namespace tensorperf::features
