// Gemm and MatMul. A constant right-hand matrix makes a dense op (weight [N, K], as torch's Linear),
// with Gemm's alpha folded into the weight and beta*C into the bias; otherwise matmul (2-D) or
// batch_matmul (3-D and up), with alpha and C as separate mul and add nodes.
#include <functional>

#include "ir/onnx/converters.h"

namespace tensorperf::ir::onnx_import {
namespace {

ConstTensor scaled(const ConstTensor& t, double factor) {
  if (factor == 1.0) return t;
  std::vector<double> v = t.floats();
  for (double& x : v) x *= factor;
  return ConstTensor::from_floats(v, t.shape, t.dtype);
}

ValueId add_constant(ImportContext& ctx, const std::string& name, const ConstTensor& t) {
  return ctx.graph().add_constant(name, t.type(), t.data);
}

// y + beta * C as an add node (C broadcast), binding the node's output.
Status add_c(const OnnxNode& node, ImportContext& ctx, ValueId y, double beta) {
  ValueId c;
  if (const ConstTensor* ct = ctx.constant(node.input(2))) {
    c = beta == 1.0 ? ctx.value(node.input(2)).value() : add_constant(ctx, node.name() + "/c", scaled(*ct, beta));
  } else {
    if (beta != 1.0) return node.unsupported("beta != 1 with a non-constant C is not supported");
    TP_ASSIGN_OR_RETURN(c, ctx.value(node.input(2)));
  }
  TP_ASSIGN_OR_RETURN(y, ctx.add_op(node, OpKind::kAdd, {y, c}, {}, "c"));
  ctx.bind_value(node.output(0), y);
  return Status::Ok();
}

// `v` reshaped to [1, M, K] when it is 2-D, else `v` itself.
Result<ValueId> batched(const OnnxNode& node, ImportContext& ctx, ValueId v, const TensorType& t,
                        const std::string& suffix) {
  if (t.rank() != 2) return v;
  return ctx.add_op(node, OpKind::kReshape, {v}, Attrs{{"shape", std::vector<int64_t>{1, t.shape[0], t.shape[1]}}},
                    suffix);
}

}  // namespace

Status convert_gemm(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(2, 3));
  TP_RETURN_IF_ERROR(node.check_attrs({"alpha", "beta", "transA", "transB"}));
  TP_ASSIGN_OR_RETURN(double alpha, node.attr_float("alpha", 1.0));
  TP_ASSIGN_OR_RETURN(double beta, node.attr_float("beta", 1.0));
  TP_ASSIGN_OR_RETURN(int64_t trans_a, node.attr_int("transA", 0));
  TP_ASSIGN_OR_RETURN(int64_t trans_b, node.attr_int("transB", 0));
  TP_ASSIGN_OR_RETURN(TensorType a_type, ctx.type(node.input(0)));
  TP_ASSIGN_OR_RETURN(TensorType b_type, ctx.type(node.input(1)));
  if (a_type.rank() != 2 || b_type.rank() != 2) return node.invalid("A and B must be 2-D");
  TP_ASSIGN_OR_RETURN(ValueId a, ctx.value(node.input(0)));
  const ConstTensor* b_const = ctx.constant(node.input(1));
  const bool has_c = node.has_input(2);

  if (trans_a == 0 && b_const != nullptr) {
    ValueId w;
    if (trans_b == 1 && alpha == 1.0) {
      TP_ASSIGN_OR_RETURN(w, ctx.value(node.input(1)));
    } else {
      const ConstTensor wt = trans_b == 1 ? *b_const : fold_transpose(*b_const, {1, 0});
      w = add_constant(ctx, node.name() + "/weight", scaled(wt, alpha));
    }
    const int64_t n = trans_b == 1 ? b_type.shape[0] : b_type.shape[1];
    std::vector<ValueId> inputs = {a, w};
    // A constant C of N elements ([N] or [1, N]) is the dense op's bias.
    const ConstTensor* c_const = has_c ? ctx.constant(node.input(2)) : nullptr;
    const bool c_is_bias = c_const != nullptr && c_const->num_elements() == n && c_const->shape.back() == n;
    if (c_is_bias) {
      ConstTensor bias = scaled(*c_const, beta);
      bias.shape = {n};
      inputs.push_back(add_constant(ctx, node.name() + "/bias", bias));
    }
    TP_ASSIGN_OR_RETURN(ValueId y, ctx.add_op(node, OpKind::kDense, std::move(inputs)));
    if (has_c && !c_is_bias) return add_c(node, ctx, y, beta);
    ctx.bind_value(node.output(0), y);
    return Status::Ok();
  }

  TP_ASSIGN_OR_RETURN(ValueId b, ctx.value(node.input(1)));
  Attrs attrs{{"transpose_a", trans_a}, {"transpose_b", trans_b}};
  TP_ASSIGN_OR_RETURN(ValueId y, ctx.add_op(node, OpKind::kMatmul, {a, b}, std::move(attrs)));
  if (alpha != 1.0) {
    const ConstTensor s = ConstTensor::from_floats({alpha}, {}, a_type.dtype);
    TP_ASSIGN_OR_RETURN(y,
                        ctx.add_op(node, OpKind::kMul, {y, add_constant(ctx, node.name() + "/alpha", s)}, {}, "alpha"));
  }
  if (has_c) return add_c(node, ctx, y, beta);
  ctx.bind_value(node.output(0), y);
  return Status::Ok();
}

Status convert_matmul(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(2, 2));
  TP_RETURN_IF_ERROR(node.check_attrs({}));
  TP_ASSIGN_OR_RETURN(TensorType a_type, ctx.type(node.input(0)));
  TP_ASSIGN_OR_RETURN(TensorType b_type, ctx.type(node.input(1)));
  if (a_type.rank() < 2 || b_type.rank() < 2) return node.unsupported("1-D MatMul operands are not supported");
  TP_ASSIGN_OR_RETURN(ValueId a, ctx.value(node.input(0)));
  const Attrs transposes{{"transpose_a", int64_t{0}}, {"transpose_b", int64_t{0}}};
  ValueId y;
  if (const ConstTensor* b_const = ctx.constant(node.input(1)); b_const != nullptr && b_type.rank() == 2) {
    const ValueId w = add_constant(ctx, node.name() + "/weight", fold_transpose(*b_const, {1, 0}));
    TP_ASSIGN_OR_RETURN(y, ctx.add_op(node, OpKind::kDense, {a, w}));
  } else if (a_type.rank() == 2 && b_type.rank() == 2) {
    TP_ASSIGN_OR_RETURN(ValueId b, ctx.value(node.input(1)));
    TP_ASSIGN_OR_RETURN(y, ctx.add_op(node, OpKind::kMatmul, {a, b}, transposes));
  } else {
    // batch_matmul wants rank >= 3 on both sides: a 2-D operand gets a leading batch dim of 1.
    TP_ASSIGN_OR_RETURN(ValueId b, ctx.value(node.input(1)));
    TP_ASSIGN_OR_RETURN(a, batched(node, ctx, a, a_type, "a3d"));
    TP_ASSIGN_OR_RETURN(b, batched(node, ctx, b, b_type, "b3d"));
    TP_ASSIGN_OR_RETURN(y, ctx.add_op(node, OpKind::kBatchMatmul, {a, b}, transposes));
  }
  ctx.bind_value(node.output(0), y);
  return Status::Ok();
}

}  // namespace tensorperf::ir::onnx_import
