// Add, Mul -> add, mul (numpy broadcasting); Sub and Div by a constant -> add and mul by its negation
// and reciprocal; Relu, Sigmoid, Tanh; Clip(0, 6) -> relu6 and Clip(0, inf) -> relu; HardSigmoid and
// HardSwish through relu6; the recognised
// Erf pattern (gelu_pattern.h) -> gelu. Arithmetic on two constants folds; Equal, Not, Where, Mod, Pow, Range
// and Expand fold on constants (shape arithmetic) and are refused on computed tensors.
#include <cmath>
#include <functional>
#include <limits>

#include "ir/onnx/converters.h"

namespace tensorperf::ir::onnx_import {
namespace {

// Folds when both inputs are constants; returns true when it did.
Result<bool> try_fold(const OnnxNode& node, ImportContext& ctx, const std::function<double(double, double)>& float_fn,
                      const std::function<int64_t(int64_t, int64_t)>& int_fn) {
  const ConstTensor* a = ctx.constant(node.input(0));
  const ConstTensor* b = ctx.constant(node.input(1));
  if (a == nullptr || b == nullptr) return false;
  Result<ConstTensor> folded = fold_binary(*a, *b, float_fn, int_fn);
  if (!folded.ok()) {
    return folded.status().code() == StatusCode::kUnsupported ? node.unsupported(folded.status().message())
                                                              : node.invalid(folded.status().message());
  }
  ctx.bind_constant(node.output(0), std::move(folded).value());
  return true;
}

Status convert_binary(const OnnxNode& node, ImportContext& ctx, OpKind op, const ConstTensor* rhs_override) {
  TP_ASSIGN_OR_RETURN(ValueId a, ctx.value(node.input(0)));
  ValueId b;
  if (rhs_override != nullptr) {
    b = ctx.graph().add_constant(node.name() + "/rhs", rhs_override->type(), rhs_override->data);
  } else {
    TP_ASSIGN_OR_RETURN(b, ctx.value(node.input(1)));
  }
  TP_ASSIGN_OR_RETURN(ValueId y, ctx.add_op(node, op, {a, b}));
  ctx.bind_value(node.output(0), y);
  return Status::Ok();
}

// Emits `op` on the node's first input.
Status emit_unary(const OnnxNode& node, ImportContext& ctx, OpKind op) {
  TP_ASSIGN_OR_RETURN(ValueId x, ctx.value(node.input(0)));
  TP_ASSIGN_OR_RETURN(ValueId y, ctx.add_op(node, op, {x}));
  ctx.bind_value(node.output(0), y);
  return Status::Ok();
}

Status convert_unary(const OnnxNode& node, ImportContext& ctx, OpKind op) {
  TP_RETURN_IF_ERROR(node.check_inputs(1, 1));
  TP_RETURN_IF_ERROR(node.check_attrs({}));
  return emit_unary(node, ctx, op);
}

// A one-element constant named "<node>/<name>" (broadcasts against any tensor).
ValueId scalar_constant(const OnnxNode& node, ImportContext& ctx, const std::string& name, double v, DType dtype) {
  return ctx.graph().add_constant(node.name() + "/" + name, TensorType{{1}, dtype},
                                  ConstTensor::from_floats({v}, {1}, dtype).data);
}

}  // namespace

Status convert_add(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(2, 2));
  TP_RETURN_IF_ERROR(node.check_attrs({}));
  TP_ASSIGN_OR_RETURN(bool folded, try_fold(node, ctx, std::plus<double>(), std::plus<int64_t>()));
  return folded ? Status::Ok() : convert_binary(node, ctx, OpKind::kAdd, nullptr);
}

Status convert_mul(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(2, 2));
  TP_RETURN_IF_ERROR(node.check_attrs({}));
  TP_ASSIGN_OR_RETURN(bool folded, try_fold(node, ctx, std::multiplies<double>(), std::multiplies<int64_t>()));
  return folded ? Status::Ok() : convert_binary(node, ctx, OpKind::kMul, nullptr);
}

Status convert_sub(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(2, 2));
  TP_RETURN_IF_ERROR(node.check_attrs({}));
  TP_ASSIGN_OR_RETURN(bool folded, try_fold(node, ctx, std::minus<double>(), std::minus<int64_t>()));
  if (folded) return Status::Ok();
  const ConstTensor* b = ctx.constant(node.input(1));
  if (b == nullptr || b->is_integer())
    return node.unsupported("only subtracting a floating-point constant is supported");
  std::vector<double> negated = b->floats();
  for (double& v : negated) v = -v;
  const ConstTensor rhs = ConstTensor::from_floats(negated, b->shape, b->dtype);
  return convert_binary(node, ctx, OpKind::kAdd, &rhs);
}

Status convert_div(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(2, 2));
  TP_RETURN_IF_ERROR(node.check_attrs({}));
  const ConstTensor* b = ctx.constant(node.input(1));
  if (b != nullptr && b->is_integer()) {
    for (int64_t v : b->ints()) {
      if (v == 0) return node.invalid("integer division by zero");
    }
  }
  TP_ASSIGN_OR_RETURN(bool folded, try_fold(node, ctx, std::divides<double>(), std::divides<int64_t>()));
  if (folded) return Status::Ok();
  if (b == nullptr || b->is_integer())
    return node.unsupported("only dividing by a floating-point constant is supported");
  std::vector<double> reciprocal = b->floats();
  for (double& v : reciprocal) v = 1.0 / v;
  const ConstTensor rhs = ConstTensor::from_floats(reciprocal, b->shape, b->dtype);
  return convert_binary(node, ctx, OpKind::kMul, &rhs);
}

Status convert_relu(const OnnxNode& node, ImportContext& ctx) { return convert_unary(node, ctx, OpKind::kRelu); }
Status convert_sigmoid(const OnnxNode& node, ImportContext& ctx) { return convert_unary(node, ctx, OpKind::kSigmoid); }
Status convert_tanh(const OnnxNode& node, ImportContext& ctx) { return convert_unary(node, ctx, OpKind::kTanh); }
Status convert_gelu(const OnnxNode& node, ImportContext& ctx) { return convert_unary(node, ctx, OpKind::kGelu); }

// HardSigmoid(x) = clip(alpha x + beta, 0, 1) = relu6(6 alpha x + 6 beta) / 6: a mul (left out when
// 6 alpha is 1, as for PyTorch's hardsigmoid and hardswish), an add, relu6 and a mul by 1/6.
Status convert_hard_sigmoid(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(1, 1));
  TP_RETURN_IF_ERROR(node.check_attrs({"alpha", "beta"}));
  TP_ASSIGN_OR_RETURN(double alpha, node.attr_float("alpha", 0.2));
  TP_ASSIGN_OR_RETURN(double beta, node.attr_float("beta", 0.5));
  TP_ASSIGN_OR_RETURN(ValueId x, ctx.value(node.input(0)));
  TP_ASSIGN_OR_RETURN(TensorType t, ctx.type(node.input(0)));
  auto scalar = [&](const std::string& name, double v) { return scalar_constant(node, ctx, name, v, t.dtype); };
  ValueId z = x;
  if (static_cast<float>(6 * alpha) != 1.0f) {
    TP_ASSIGN_OR_RETURN(z, ctx.add_op(node, OpKind::kMul, {z, scalar("scale", 6 * alpha)}, {}, "scale"));
  }
  TP_ASSIGN_OR_RETURN(z, ctx.add_op(node, OpKind::kAdd, {z, scalar("shift", 6 * beta)}, {}, "shift"));
  TP_ASSIGN_OR_RETURN(z, ctx.add_op(node, OpKind::kRelu6, {z}, {}, "clip"));
  TP_ASSIGN_OR_RETURN(z, ctx.add_op(node, OpKind::kMul, {z, scalar("sixth", 1.0 / 6.0)}));
  ctx.bind_value(node.output(0), z);
  return Status::Ok();
}

// HardSwish(x) = x HardSigmoid(x) with alpha 1/6, beta 1/2 (opset 14).
Status convert_hard_swish(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(1, 1));
  TP_RETURN_IF_ERROR(node.check_attrs({}));
  TP_ASSIGN_OR_RETURN(ValueId x, ctx.value(node.input(0)));
  TP_ASSIGN_OR_RETURN(TensorType t, ctx.type(node.input(0)));
  auto scalar = [&](const std::string& name, double v) { return scalar_constant(node, ctx, name, v, t.dtype); };
  TP_ASSIGN_OR_RETURN(ValueId z, ctx.add_op(node, OpKind::kAdd, {x, scalar("shift", 3.0)}, {}, "shift"));
  TP_ASSIGN_OR_RETURN(z, ctx.add_op(node, OpKind::kRelu6, {z}, {}, "clip"));
  TP_ASSIGN_OR_RETURN(z, ctx.add_op(node, OpKind::kMul, {z, scalar("sixth", 1.0 / 6.0)}, {}, "sixth"));
  TP_ASSIGN_OR_RETURN(z, ctx.add_op(node, OpKind::kMul, {x, z}));
  ctx.bind_value(node.output(0), z);
  return Status::Ok();
}

Status convert_clip(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(1, 3));
  TP_RETURN_IF_ERROR(node.check_attrs({}));
  // Absent bounds are -inf / +inf.
  auto bound = [&](int i, double absent) -> Result<double> {
    if (!node.has_input(i)) return absent;
    const ConstTensor* t = ctx.constant(node.input(i));
    if (t == nullptr || t->num_elements() != 1) return node.unsupported("min and max must be constant scalars");
    return t->float_at(0);
  };
  TP_ASSIGN_OR_RETURN(double lo, bound(1, -std::numeric_limits<double>::infinity()));
  TP_ASSIGN_OR_RETURN(double hi, bound(2, std::numeric_limits<double>::infinity()));
  if (lo == 0.0 && hi == 6.0) return emit_unary(node, ctx, OpKind::kRelu6);
  if (lo == 0.0 && std::isinf(hi) && hi > 0) return emit_unary(node, ctx, OpKind::kRelu);
  return node.unsupported("only Clip(0, 6) (relu6) and Clip(0, inf) (relu) are supported, got Clip(" +
                          std::to_string(lo) + ", " + std::to_string(hi) + ")");
}

}  // namespace tensorperf::ir::onnx_import

namespace tensorperf::ir::onnx_import {
namespace {

// The constants of a node's inputs first..last, or an Unsupported error naming `what`.
Result<std::vector<const ConstTensor*>> constant_inputs(const OnnxNode& node, ImportContext& ctx, size_t n,
                                                        const char* what) {
  std::vector<const ConstTensor*> out;
  for (size_t i = 0; i < n; ++i) {
    const ConstTensor* t = ctx.constant(node.input(i));
    if (t == nullptr) return node.unsupported(std::string(what) + " is supported on constants only (shape arithmetic)");
    out.push_back(t);
  }
  return out;
}

Status bind_folded(const OnnxNode& node, ImportContext& ctx, Result<ConstTensor> folded) {
  if (!folded.ok())
    return folded.status().code() == StatusCode::kUnsupported ? node.unsupported(folded.status().message())
                                                              : node.invalid(folded.status().message());
  ctx.bind_constant(node.output(0), std::move(folded).value());
  return Status::Ok();
}

// ONNX's bool tensors are int32 0/1 here (as tensor_proto.cc reads them).
ConstTensor as_bool(const ConstTensor& t) {
  std::vector<int64_t> v = t.ints();
  for (int64_t& x : v) x = x != 0;
  return ConstTensor::from_ints(v, t.shape, DType::kInt32);
}

}  // namespace

Status convert_equal(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(2, 2));
  TP_RETURN_IF_ERROR(node.check_attrs({}));
  TP_ASSIGN_OR_RETURN(std::vector<const ConstTensor*> in, constant_inputs(node, ctx, 2, "Equal"));
  Result<ConstTensor> eq = fold_binary(
      *in[0], *in[1], [](double a, double b) { return a == b ? 1.0 : 0.0; },
      [](int64_t a, int64_t b) -> int64_t { return a == b; });
  if (!eq.ok()) return bind_folded(node, ctx, eq.status());
  return bind_folded(node, ctx, as_bool(*eq));
}

Status convert_not(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(1, 1));
  TP_RETURN_IF_ERROR(node.check_attrs({}));
  TP_ASSIGN_OR_RETURN(std::vector<const ConstTensor*> in, constant_inputs(node, ctx, 1, "Not"));
  std::vector<int64_t> v = in[0]->ints();
  for (int64_t& x : v) x = x == 0;
  return bind_folded(node, ctx, ConstTensor::from_ints(v, in[0]->shape, DType::kInt32));
}

// Where(condition, x, y) on constants: x where the condition holds, else y (broadcast).
Status convert_where(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(3, 3));
  TP_RETURN_IF_ERROR(node.check_attrs({}));
  TP_ASSIGN_OR_RETURN(std::vector<const ConstTensor*> in, constant_inputs(node, ctx, 3, "Where"));
  const ConstTensor &c = *in[0], &x = *in[1], &y = *in[2];
  if (x.dtype != y.dtype) return node.invalid("x and y must have one type");
  Result<ConstTensor> taken = fold_binary(
      x, c, [](double v, double cond) { return cond != 0 ? v : 0.0; },
      [](int64_t v, int64_t cond) { return cond != 0 ? v : int64_t{0}; });
  if (!taken.ok()) return bind_folded(node, ctx, taken.status());
  Result<ConstTensor> other = fold_binary(
      y, c, [](double v, double cond) { return cond != 0 ? 0.0 : v; },
      [](int64_t v, int64_t cond) { return cond != 0 ? int64_t{0} : v; });
  if (!other.ok()) return bind_folded(node, ctx, other.status());
  return bind_folded(node, ctx, fold_binary(*taken, *other, std::plus<double>(), std::plus<int64_t>()));
}

// Mod on constants: fmod=0 (integers) takes the divisor's sign, as Python's %; fmod=1, C's fmod.
Status convert_mod(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(2, 2));
  TP_RETURN_IF_ERROR(node.check_attrs({"fmod"}));
  TP_ASSIGN_OR_RETURN(int64_t fmod, node.attr_int("fmod", 0));
  TP_ASSIGN_OR_RETURN(std::vector<const ConstTensor*> in, constant_inputs(node, ctx, 2, "Mod"));
  if (fmod == 0 && !in[0]->is_integer()) return node.invalid("fmod=0 needs integer inputs");
  if (in[1]->is_integer())
    for (int64_t v : in[1]->ints())
      if (v == 0) return node.invalid("integer modulo by zero");
  return bind_folded(node, ctx,
                     fold_binary(
                         *in[0], *in[1], [](double a, double b) { return std::fmod(a, b); },
                         [fmod](int64_t a, int64_t b) {
                           int64_t r = a % b;
                           if (fmod == 0 && r != 0 && ((r < 0) != (b < 0))) r += b;
                           return r;
                         }));
}

Status convert_pow(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(2, 2));
  TP_RETURN_IF_ERROR(node.check_attrs({}));
  TP_ASSIGN_OR_RETURN(std::vector<const ConstTensor*> in, constant_inputs(node, ctx, 2, "Pow"));
  return bind_folded(node, ctx,
                     fold_binary(
                         *in[0], *in[1], [](double a, double b) { return std::pow(a, b); },
                         [](int64_t a, int64_t b) {
                           int64_t r = 1;
                           for (int64_t i = 0; i < b; ++i) r *= a;
                           return b < 0 ? int64_t{0} : r;
                         }));
}

// Range(start, limit, delta) on scalar constants: start, start + delta, ... before limit.
Status convert_range(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(3, 3));
  TP_RETURN_IF_ERROR(node.check_attrs({}));
  TP_ASSIGN_OR_RETURN(std::vector<const ConstTensor*> in, constant_inputs(node, ctx, 3, "Range"));
  for (const ConstTensor* t : in)
    if (t->num_elements() != 1) return node.invalid("start, limit and delta must be scalars");
  const double start = in[0]->float_at(0), limit = in[1]->float_at(0), delta = in[2]->float_at(0);
  if (delta == 0) return node.invalid("a delta of 0");
  const double count = std::max(std::ceil((limit - start) / delta), 0.0);
  if (count > static_cast<double>(kMaxFoldedElements)) return node.unsupported("a range of too many elements");
  const int64_t n = static_cast<int64_t>(count);
  if (in[0]->is_integer()) {
    std::vector<int64_t> v(n);
    for (int64_t i = 0; i < n; ++i) v[i] = in[0]->int_at(0) + i * in[2]->int_at(0);
    return bind_folded(node, ctx, ConstTensor::from_ints(v, {n}, in[0]->dtype));
  }
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = start + static_cast<double>(i) * delta;
  return bind_folded(node, ctx, ConstTensor::from_floats(v, {n}, in[0]->dtype));
}

// Expand(x, shape) on a constant x: x broadcast to the shape (numpy rules, either side may be 1).
Status convert_expand(const OnnxNode& node, ImportContext& ctx) {
  TP_RETURN_IF_ERROR(node.check_inputs(2, 2));
  TP_RETURN_IF_ERROR(node.check_attrs({}));
  TP_ASSIGN_OR_RETURN(std::vector<const ConstTensor*> in, constant_inputs(node, ctx, 2, "Expand"));
  const Shape shape = in[1]->ints();
  for (int64_t d : shape)
    if (d < 0) return node.invalid("negative dimension in the shape " + shape_to_string(shape));
  const int64_t n = TensorType{shape, in[0]->dtype}.num_elements();
  if (n > kMaxFoldedElements) return node.unsupported("a constant of " + std::to_string(n) + " elements is too large");
  const ConstTensor ones = in[0]->is_integer()
                               ? ConstTensor::from_ints(std::vector<int64_t>(n, 1), shape, in[0]->dtype)
                               : ConstTensor::from_floats(std::vector<double>(n, 1.0), shape, in[0]->dtype);
  return bind_folded(node, ctx,
                     fold_binary(
                         *in[0], ones, [](double a, double) { return a; }, [](int64_t a, int64_t) { return a; }));
}

}  // namespace tensorperf::ir::onnx_import
