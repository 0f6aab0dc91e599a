// dense: x[..., K] * w[M, K]^T (+ bias[M]) -> [..., M]
// matmul: a[M,K] * b[K,N] -> [M,N]           (transpose_a / transpose_b swap the last two dims)
// batch_matmul: a[B...,M,K] * b[B...,K,N] -> [B...,M,N], leading dims broadcast
#include <string>

#include "ir/ops/op_rules.h"

namespace tensorperf::ir::ops {

namespace {

struct MatDims {
  int64_t m, k, n;
  Shape batch;
};

Result<MatDims> matmul_dims(OpKind op, const Types& in, const Attrs& attrs) {
  const Shape& a = in[0].shape;
  const Shape& b = in[1].shape;
  if (op == OpKind::kDense) {
    if (a.empty()) return Status::InvalidArgument("dense input must have rank >= 1");
    TP_RETURN_IF_ERROR(expect_rank(in[1], 2, "dense weight"));
    if (a.back() != b[1])
      return Status::InvalidArgument("dense input " + in[0].to_string() + " and weight " + in[1].to_string() +
                                     " disagree on K (weight is [M, K])");
    int64_t rows = 1;
    for (size_t i = 0; i + 1 < a.size(); ++i) rows *= a[i];
    if (in.size() == 3 && in[2].shape != Shape{b[0]})
      return Status::InvalidArgument("bias " + in[2].to_string() + " must be [" + std::to_string(b[0]) + "]");
    return MatDims{rows, a.back(), b[0], Shape(a.begin(), a.end() - 1)};
  }
  bool ta = attrs.get_int("transpose_a", 0) != 0;
  bool tb = attrs.get_int("transpose_b", 0) != 0;
  if (op == OpKind::kMatmul) {
    TP_RETURN_IF_ERROR(expect_rank(in[0], 2, "matmul a"));
    TP_RETURN_IF_ERROR(expect_rank(in[1], 2, "matmul b"));
  } else if (a.size() < 3 || b.size() < 3) {
    return Status::InvalidArgument("batch_matmul inputs must have rank >= 3, got " + in[0].to_string() + " and " +
                                   in[1].to_string());
  }
  int64_t m = ta ? a[a.size() - 1] : a[a.size() - 2];
  int64_t ka = ta ? a[a.size() - 2] : a[a.size() - 1];
  int64_t kb = tb ? b[b.size() - 1] : b[b.size() - 2];
  int64_t n = tb ? b[b.size() - 2] : b[b.size() - 1];
  if (ka != kb)
    return Status::InvalidArgument(std::string(op_name(op)) + " inputs " + in[0].to_string() + " and " +
                                   in[1].to_string() + " disagree on K");
  TP_ASSIGN_OR_RETURN(Shape batch, broadcast_shapes(Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2)));
  return MatDims{m, ka, n, batch};
}

}  // namespace

Result<Types> infer_matmul_family(OpKind op, const Types& in, const Attrs& attrs, int) {
  TP_RETURN_IF_ERROR(expect_same_dtype(in));
  TP_ASSIGN_OR_RETURN(MatDims d, matmul_dims(op, in, attrs));
  Shape out = d.batch;
  if (op != OpKind::kDense) out.push_back(d.m);
  out.push_back(d.n);
  return Types{TensorType{out, in[0].dtype}};
}

double flops_matmul_family(OpKind op, const Types& in, const Attrs& attrs, const Types& out) {
  auto d = matmul_dims(op, in, attrs);
  if (!d.ok()) return 0;
  double main = 2 * elements(out[0]) * static_cast<double>(d->k);
  return main + (op == OpKind::kDense && in.size() == 3 ? elements(out[0]) : 0);
}

}  // namespace tensorperf::ir::ops
