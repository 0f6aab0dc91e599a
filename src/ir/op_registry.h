// The one table of op kinds: arity, attribute checks, shape inference and FLOP counts per kind.
// Each family's rules live in src/ir/ops/<family>.cc and are gathered here.
#pragma once

#include <vector>

#include "base/status.h"
#include "ir/attrs.h"
#include "ir/op_kind.h"
#include "ir/tensor_type.h"

namespace tensorperf::ir {

// Output types of one op, or an error saying what does not fit (the caller adds the node's name).
Result<std::vector<TensorType>> infer_op(OpKind op, const std::vector<TensorType>& inputs, const Attrs& attrs,
                                         int num_outputs);
// Floating-point operations of one op instance; a multiply-add counts as 2. Layout ops count 0.
double op_flops(OpKind op, const std::vector<TensorType>& inputs, const Attrs& attrs,
                const std::vector<TensorType>& outputs);

}  // namespace tensorperf::ir
