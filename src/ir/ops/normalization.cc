// softmax over one axis (4 FLOPs per element: max, subtract+exp, sum, divide);
// layer_norm over axis..end with gamma/beta over those dims (5 FLOPs per element: mean, variance,
// subtract, scale, shift).
#include <string>

#include "ir/ops/op_rules.h"

namespace tensorperf::ir::ops {

Result<Types> infer_normalization(OpKind op, const Types& in, const Attrs& attrs, int) {
  TP_RETURN_IF_ERROR(expect_same_dtype(in));
  TP_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(attrs.get_int("axis", -1), in[0].rank()));
  if (op == OpKind::kLayerNorm) {
    Shape norm(in[0].shape.begin() + axis, in[0].shape.end());
    for (size_t i = 1; i < in.size(); ++i)
      if (in[i].shape != norm)
        return Status::InvalidArgument("layer_norm parameter " + in[i].to_string() + " must have shape " +
                                       shape_to_string(norm));
  }
  return Types{in[0]};
}

double flops_normalization(OpKind op, const Types&, const Attrs&, const Types& out) {
  return (op == OpKind::kSoftmax ? 4 : 5) * elements(out[0]);
}

}  // namespace tensorperf::ir::ops
