// Operation counts of a leaf by type, over all its executions: floating-point vector operations
// count their lanes; log2(1 + n) each.
#include "features/leaf_features.h"

namespace tensorperf::features {
namespace {

void extract(const LeafContext& ctx, std::vector<float>& out) {
  const kernels::OpCounts& o = ctx.leaf.ops;
  const double lanes = ctx.leaf.lanes, n = ctx.executions;
  for (int64_t c : {o.float_add, o.float_mul, o.float_fma, o.float_div, o.float_cmp, o.float_math})
    out.push_back(log_feature(static_cast<double>(c) * lanes * n));
  out.push_back(log_feature(static_cast<double>(o.int_ops) * n));
  out.push_back(log_feature(static_cast<double>(o.select) * lanes * n));
  out.push_back(log_feature(static_cast<double>(o.casts) * n));
  out.push_back(log_feature(leaf_flops(ctx)));
}

}  // namespace

const LeafFeatureGroup& arithmetic_features() {
  static const LeafFeatureGroup g{
      "ops",
      {"float_add", "float_mul", "float_fma", "float_div", "float_cmp", "float_math", "int", "select", "cast", "flops"},
      extract};
  return g;
}

}  // namespace tensorperf::features
