// Internal to src/ir: the per-family rules gathered by op_registry.cc. One family per file here.
#pragma once

#include <vector>

#include "base/status.h"
#include "ir/attrs.h"
#include "ir/op_kind.h"
#include "ir/tensor_type.h"

namespace tensorperf::ir::ops {

using Types = std::vector<TensorType>;
using InferFn = Result<Types> (*)(OpKind op, const Types& in, const Attrs& attrs, int num_outputs);
using FlopsFn = double (*)(OpKind op, const Types& in, const Attrs& attrs, const Types& out);

// Shared checks for rule files.
Status expect_rank(const TensorType& t, int64_t rank, const char* what);
Status expect_same_dtype(const Types& in);
// Normalises a possibly negative axis against `rank`; error when out of range.
Result<int64_t> normalize_axis(int64_t axis, int64_t rank);
// Numpy broadcasting of two shapes.
Result<Shape> broadcast_shapes(const Shape& a, const Shape& b);
double elements(const TensorType& t);

Result<Types> infer_conv2d(OpKind, const Types&, const Attrs&, int);
double flops_conv2d(OpKind, const Types&, const Attrs&, const Types&);

Result<Types> infer_matmul_family(OpKind, const Types&, const Attrs&, int);  // dense, matmul, batch_matmul
double flops_matmul_family(OpKind, const Types&, const Attrs&, const Types&);

Result<Types> infer_pool(OpKind, const Types&, const Attrs&, int);  // max, avg, global avg
double flops_pool(OpKind, const Types&, const Attrs&, const Types&);

Result<Types> infer_elementwise(OpKind, const Types&, const Attrs&, int);  // add, mul, activations, batch_norm
double flops_elementwise(OpKind, const Types&, const Attrs&, const Types&);

Result<Types> infer_normalization(OpKind, const Types&, const Attrs&, int);  // softmax, layer_norm
double flops_normalization(OpKind, const Types&, const Attrs&, const Types&);

Result<Types> infer_layout(OpKind, const Types&, const Attrs&, int);  // concat, split, slice, reshape, ...
double flops_none(OpKind, const Types&, const Attrs&, const Types&);

}  // namespace tensorperf::ir::ops
