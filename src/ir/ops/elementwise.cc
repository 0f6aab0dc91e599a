// add, mul: numpy broadcasting. relu, relu6, sigmoid, tanh, gelu: unary.
// batch_norm: x[N,C,...] with scale, bias, mean, var each [C]; inference form y = x*a + b.
#include <string>

#include "ir/ops/op_rules.h"

namespace tensorperf::ir::ops {

Result<Types> infer_elementwise(OpKind op, const Types& in, const Attrs&, int) {
  TP_RETURN_IF_ERROR(expect_same_dtype(in));
  if (op == OpKind::kAdd || op == OpKind::kMul) {
    TP_ASSIGN_OR_RETURN(Shape out, broadcast_shapes(in[0].shape, in[1].shape));
    return Types{TensorType{out, in[0].dtype}};
  }
  if (op == OpKind::kBatchNorm) {
    if (in[0].rank() < 2) return Status::InvalidArgument("batch_norm input must have rank >= 2, got " + in[0].to_string());
    for (size_t i = 1; i < in.size(); ++i)
      if (in[i].shape != Shape{in[0].shape[1]})
        return Status::InvalidArgument("batch_norm parameter " + in[i].to_string() + " must be [" +
                                       std::to_string(in[0].shape[1]) + "] (one per channel)");
  }
  return Types{in[0]};
}

double flops_elementwise(OpKind op, const Types&, const Attrs&, const Types& out) {
  return (op == OpKind::kBatchNorm ? 2 : 1) * elements(out[0]);
}

}  // namespace tensorperf::ir::ops
