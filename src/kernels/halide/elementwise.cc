// Standalone elementwise workloads: add, mul (numpy broadcasting), relu, relu6, sigmoid, tanh, gelu,
// batch_norm (inference form), each followed by its epilogue if any.
//
// Knobs:
//   vector_width  SIMD lanes along the innermost dim
//   unroll        vectors per loop iteration (1, 2, 4)
//   parallel      "outer": the outermost dims fused and run in parallel, one task per row of the
//                 innermost dim; "chunks": tasks of about kChunkElements elements, each a run of
//                 slabs of the innermost dims; "none"
//
// The default is vectorized and parallel in chunks. One task per row (the "outer" value) costs an
// OpenMP dynamic-schedule hand-out each: a 264x28x28 ReLU is 7,392 tasks of 28 elements, and it ran
// 8x slower on 2 threads than on one. A tensor of one chunk or less runs on one thread.
#include <algorithm>
#include <cstdint>

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
      {"parallel", {J("outer"), J("none"), J("chunks")}},
  }};
}

// Elements per parallel task for "chunks": 64 KiB of float32 output, many times what handing out a
// task costs, and small enough that a tensor of a few hundred KiB spreads over the threads.
constexpr int64_t kChunkElements = 16384;
// Elements of the innermost dims a task's loops keep nested: a fused loop recomputes its dims'
// indices (a division each) per iteration, which per row of 7 elements cost more than the ReLU.
constexpr int64_t kSlabElements = 256;

nlohmann::json elementwise_default(const ir::Workload& w) {
  return {{"vector_width", row_vector_width(w)}, {"unroll", 1}, {"parallel", "chunks"}};
}

// Fuses vars[from..rank-1] (the outer dims) into one loop var, returned; vars[rank-1] alone when
// from is rank - 1.
Var fuse_outer(Func& out, const std::vector<Var>& vars, size_t from) {
  Var outer = vars.back();
  for (size_t i = vars.size() - 1; i-- > from;) {
    Var fused(outer.name() + "_" + vars[i].name());
    out.fuse(vars[i], outer, fused);
    outer = fused;
  }
  return outer;
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
  if (e.par != "outer" && e.par != "none" && e.par != "chunks")
    return Status::InvalidArgument("parallel must be outer, chunks or none");
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
    out.parallel(fuse_outer(out, vars, 1));
  } else if (par == "chunks" && rank > 1) {
    // Slabs: the innermost dims, kept as nested loops, until a slab holds kSlabElements (or only the
    // outermost dim is left); the dims above them fused (one index split per slab, not per row)
    // and split into tasks of about kChunkElements.
    const ir::Shape& shape = w.output.shape;  // NCHW order: vars[i] is shape[rank - 1 - i]
    size_t k = 1;
    int64_t slab = shape[rank - 1];
    for (; k + 1 < rank && slab < kSlabElements; ++k) slab *= shape[rank - 1 - k];
    int64_t slabs = 1;
    for (size_t i = k; i < rank; ++i) slabs *= shape[rank - 1 - i];
    const int64_t per_task = std::max<int64_t>(1, kChunkElements / std::max<int64_t>(1, slab));
    if (slabs > per_task) {  // else one task: the loops stay serial
      Var task("task"), slab_in_task("slab");
      out.split(fuse_outer(out, vars, k), task, slab_in_task, static_cast<int>(per_task), TailStrategy::GuardWithIf)
          .parallel(task);
    }
  }
  return prog;
}

}  // namespace

const OpTemplate& elementwise_template() {
  static const OpTemplate t{elementwise_space, elementwise_default, elementwise_validate, elementwise_build};
  return t;
}

}  // namespace tensorperf::kernels::halide
