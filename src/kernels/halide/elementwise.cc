// Standalone elementwise workloads: add, mul (numpy broadcasting), relu, relu6, sigmoid, tanh, gelu,
// batch_norm (inference form), each followed by its epilogue if any.
//
// Knobs:
//   vector_width  SIMD lanes along the innermost dim
//   unroll        vectors per loop iteration (1, 2, 4)
//   parallel      "outer": the outermost dims fused and run in parallel; "none"
#include "kernels/halide/halide_template.h"

namespace tensorperf::kernels::halide {
namespace {

using Halide::Expr;
using Halide::Func;
using Halide::TailStrategy;
using Halide::Var;

ConfigSpace elementwise_space(const ir::Workload&) {
  using J = nlohmann::json;
  return ConfigSpace{{
      {"vector_width", {J(1), J(4), J(8), J(16)}},
      {"unroll", {J(1), J(2), J(4)}},
      {"parallel", {J("outer"), J("none")}},
  }};
}

nlohmann::json elementwise_default(const ir::Workload&) {
  return {{"vector_width", 1}, {"unroll", 1}, {"parallel", "none"}};
}

// Index (Halide order) into an input broadcast against the output's vars (right-aligned).
std::vector<Expr> broadcast_index(const ir::Shape& shape, const std::vector<Var>& vars) {
  std::vector<Expr> idx;
  for (size_t i = 0; i < shape.size(); ++i) idx.push_back(shape[shape.size() - 1 - i] == 1 ? Expr(0) : Expr(vars[i]));
  return idx;
}

struct ElementwiseKnobs {
  int vw, unroll;
  std::string par;
};

Result<ElementwiseKnobs> read_elementwise_knobs(const Knobs& kn) {
  ElementwiseKnobs e;
  TP_ASSIGN_OR_RETURN(e.vw, kn.get_int("vector_width"));
  TP_ASSIGN_OR_RETURN(e.unroll, kn.get_int("unroll"));
  TP_ASSIGN_OR_RETURN(e.par, kn.get_string("parallel"));
  if (e.vw < 1 || e.unroll < 1) return Status::InvalidArgument("vector_width and unroll must be >= 1");
  if (e.par != "outer" && e.par != "none") return Status::InvalidArgument("parallel must be outer or none");
  return e;
}

Status elementwise_validate(const ir::Workload&, const Knobs& kn) { return read_elementwise_knobs(kn).status(); }

Result<Program> elementwise_build(const ir::Workload& w, const Knobs& kn) {
  TP_ASSIGN_OR_RETURN(const ElementwiseKnobs ek, read_elementwise_knobs(kn));
  const int vw = ek.vw, unroll = ek.unroll;
  const std::string& par = ek.par;
  Program prog;
  prog.inputs = make_params(w);
  const size_t rank = w.output.shape.size();
  std::vector<Var> vars;
  for (size_t i = 0; i < rank; ++i) vars.emplace_back("d" + std::to_string(i));
  std::vector<Expr> coords(vars.begin(), vars.end());
  auto input = [&](size_t i) { return prog.inputs[i](broadcast_index(w.inputs[i].shape, vars)); };

  Expr value;
  switch (w.op) {
    case ir::OpKind::kAdd: value = input(0) + input(1); break;
    case ir::OpKind::kMul: value = input(0) * input(1); break;
    case ir::OpKind::kBatchNorm: {
      // Channel is NCHW dim 1: Halide dim rank-2.
      Expr ch = vars[rank - 2];
      const float eps = static_cast<float>(w.attrs.get_float("epsilon", 1e-5));
      Expr scale = prog.inputs[1](ch) / Halide::sqrt(prog.inputs[4](ch) + eps);
      value = (input(0) - prog.inputs[3](ch)) * scale + prog.inputs[2](ch);
      break;
    }
    default: value = activation(std::string(ir::op_name(w.op)), input(0)); break;
  }
  Func out("out");
  out(vars) = apply_epilogue(w, value, coords, prog.inputs);
  prog.output = out;
  if (!kn.schedule()) return prog;  // the algorithm alone, for autoschedulers

  Var inner = vars[0];
  if (vw > 1) {
    Var vo("vo"), vi("vi");
    out.split(inner, vo, vi, vw * unroll, TailStrategy::GuardWithIf).vectorize(vi, vw).unroll(vi);
  }
  if (par == "outer" && rank > 1) {
    Var outer = vars[rank - 1];
    for (size_t i = rank - 1; i-- > 1;) {
      Var fused(outer.name() + "_" + vars[i].name());
      out.fuse(vars[i], outer, fused);
      outer = fused;
    }
    out.parallel(outer);
  }
  return prog;
}

}  // namespace

const OpTemplate& elementwise_template() {
  static const OpTemplate t{elementwise_space, elementwise_default, elementwise_validate, elementwise_build};
  return t;
}

}  // namespace tensorperf::kernels::halide
