#include "features/leaf_features.h"

namespace tensorperf::features {

const std::vector<const LeafFeatureGroup*>& leaf_feature_groups() {
  static const std::vector<const LeafFeatureGroup*> groups = {
      &arithmetic_features(),
      &loop_features(),
      &buffer_features(),
      &intensity_features(),
  };
  return groups;
}

const std::vector<std::string>& leaf_feature_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const LeafFeatureGroup* g : leaf_feature_groups())
      for (const std::string& f : g->names) n.push_back(std::string(g->name) + "." + f);
    return n;
  }();
  return names;
}

std::vector<float> leaf_features(const LeafContext& ctx) {
  std::vector<float> out;
  out.reserve(leaf_feature_names().size());
  for (const LeafFeatureGroup* g : leaf_feature_groups()) g->extract(ctx, out);
  return out;
}

double leaf_flops(const LeafContext& ctx) {
  const kernels::OpCounts& o = ctx.leaf.ops;
  const double per_iteration = static_cast<double>(o.float_add + o.float_mul + 2 * o.float_fma + o.float_div +
                                                   o.float_cmp + o.float_math);
  return per_iteration * ctx.leaf.lanes * ctx.executions;
}

}  // namespace tensorperf::features
