// matmul and batch_matmul: out[B..., M, N] = A[B..., M, K] * B[B..., K, N], either side transposed
// (attrs transpose_a / transpose_b), leading dims broadcast numpy-style (right-aligned).
//
// Knobs:
//   n_block       output columns per register tile (vectorised)
//   vector_width  SIMD lanes
//   tile_m        output rows per register tile
//   k_block       reduction block (0: no split)
//   unroll        1: unroll the register tile's rows
//   parallel      "rows": batch x row tiles; "none"
#include <cmath>

#include "kernels/halide/halide_template.h"

namespace tensorperf::kernels::halide {
namespace {

using Halide::Expr;
using Halide::Func;
using Halide::ImageParam;
using Halide::RDom;
using Halide::TailStrategy;
using Halide::Var;

ConfigSpace matmul_space(const ir::Workload&) {
  using J = nlohmann::json;
  return ConfigSpace{{
      {"n_block", {J(4), J(8), J(16), J(32), J(64)}},
      {"vector_width", {J(4), J(8), J(16)}},
      {"tile_m", {J(1), J(2), J(4), J(8)}},
      {"k_block", {J(0), J(64), J(128), J(256)}},
      {"unroll", {J(0), J(1)}},
      {"parallel", {J("rows"), J("none")}},
  }};
}

nlohmann::json matmul_default(const ir::Workload&) {
  return {{"n_block", 8}, {"vector_width", 8}, {"tile_m", 1}, {"k_block", 0}, {"unroll", 0}, {"parallel", "rows"}};
}

// Index list (Halide order) into an operand of rank `rank` whose last two dims are (row, col),
// broadcasting its batch dims against the output's batch vars.
std::vector<Expr> operand_index(const ir::Shape& shape, Expr row, Expr col, const std::vector<Var>& batch) {
  std::vector<Expr> idx = {col, row};
  size_t operand_batch = shape.size() - 2;
  for (size_t i = 0; i < operand_batch; ++i) {
    // Halide batch dim i of the operand is NCHW dim (operand_batch - 1 - i); aligned to output batch var i.
    int64_t extent = shape[operand_batch - 1 - i];
    idx.push_back(extent == 1 ? Expr(0) : Expr(batch[i]));
  }
  return idx;
}

struct MatmulKnobs {
  int nb, vw, tm, kb, unroll;
  std::string par;
};

Result<MatmulKnobs> read_matmul_knobs(const Knobs& kn) {
  MatmulKnobs m;
  TP_ASSIGN_OR_RETURN(m.nb, kn.get_int("n_block"));
  TP_ASSIGN_OR_RETURN(m.vw, kn.get_int("vector_width"));
  TP_ASSIGN_OR_RETURN(m.tm, kn.get_int("tile_m"));
  TP_ASSIGN_OR_RETURN(m.kb, kn.get_int("k_block"));
  TP_ASSIGN_OR_RETURN(m.unroll, kn.get_int("unroll"));
  TP_ASSIGN_OR_RETURN(m.par, kn.get_string("parallel"));
  if (m.nb < 1 || m.vw < 1 || m.tm < 1 || m.kb < 0) return Status::InvalidArgument("block sizes must be positive");
  if (m.par != "rows" && m.par != "none") return Status::InvalidArgument("parallel must be rows or none");
  return m;
}

Status matmul_validate(const ir::Workload&, const Knobs& kn) { return read_matmul_knobs(kn).status(); }

// Schedule features of a valid config: register tile, tasks, reduction blocks, lane use.
Result<std::vector<double>> matmul_features(const ir::Workload& w, const Knobs& kn) {
  TP_ASSIGN_OR_RETURN(const MatmulKnobs mk, read_matmul_knobs(kn));
  const ir::Shape& out = w.output.shape;
  const double N = static_cast<double>(out.back()), M = static_cast<double>(out[out.size() - 2]);
  const double batch = static_cast<double>(w.output.num_elements()) / (M * N);
  const bool ta = w.attrs.get_int("transpose_a", 0) != 0;
  const ir::Shape& as = w.inputs[0].shape;
  const double K = static_cast<double>(ta ? as[as.size() - 2] : as.back());
  auto ceil_div = [](double a, double b) { return std::ceil(a / b); };
  auto lg = [](double v) { return std::log2(1.0 + v); };
  const double tasks = mk.par == "rows" ? ceil_div(M, mk.tm) * batch : 1;
  const double kb = mk.kb > 0 && mk.kb < K ? mk.kb : K;
  return std::vector<double>{ceil_div(mk.nb, mk.vw) * mk.tm, lg(tasks), lg(batch * M * N * K / tasks), K / kb,
                             lg(4.0 * mk.nb * kb), (ceil_div(N, mk.nb) * mk.nb - N) / N,
                             (mk.nb % mk.vw == 0 ? 1.0 : mk.nb / (ceil_div(mk.nb, mk.vw) * mk.vw))};
}

Result<Program> matmul_build(const ir::Workload& w, const Knobs& kn) {
  TP_ASSIGN_OR_RETURN(const MatmulKnobs mk, read_matmul_knobs(kn));
  const int nb = mk.nb, vw = mk.vw, tm = mk.tm, kb = mk.kb, unroll = mk.unroll;
  const std::string& par = mk.par;
  const bool ta = w.attrs.get_int("transpose_a", 0) != 0, tb = w.attrs.get_int("transpose_b", 0) != 0;
  const ir::Shape& as = w.inputs[0].shape;
  const ir::Shape& bs = w.inputs[1].shape;
  const int K = static_cast<int>(ta ? as[as.size() - 2] : as.back());

  Program prog;
  prog.inputs = make_params(w);
  const size_t rank = w.output.shape.size();
  Var n("n"), m("m");
  std::vector<Var> batch;
  for (size_t i = 2; i < rank; ++i) batch.emplace_back("b" + std::to_string(i - 2));
  std::vector<Var> all = {n, m};
  all.insert(all.end(), batch.begin(), batch.end());
  std::vector<Expr> coords(all.begin(), all.end());

  RDom k(0, K, "k");
  Expr a = ta ? prog.inputs[0](operand_index(as, k, m, batch)) : prog.inputs[0](operand_index(as, m, k, batch));
  Expr b = tb ? prog.inputs[1](operand_index(bs, n, k, batch)) : prog.inputs[1](operand_index(bs, k, n, batch));
  Func acc("acc");
  acc(all) = 0.0f;
  acc(all) += a * b;
  Func out("out");
  out(all) = apply_epilogue(w, acc(all), coords, prog.inputs);

  prog.output = out;
  if (!kn.schedule()) return prog;  // the algorithm alone, for autoschedulers

  const TailStrategy guard = TailStrategy::GuardWithIf;
  Var no("no"), ni("ni"), mo("mo"), mi("mi"), task("task");
  out.split(n, no, ni, nb, guard).split(m, mo, mi, tm, guard).reorder(ni, mi, no, mo);
  out.vectorize(ni, vw, guard);
  Var outer = mo;
  for (const Var& v : batch) {
    Var fused(outer.name() + "_" + v.name());
    out.fuse(outer, v, fused);
    outer = fused;
  }
  if (par == "rows") out.parallel(outer);
  acc.compute_at(out, no);
  schedule_matrix_accumulator(acc, n, m, k, kb, K, vw, unroll);
  return prog;
}

}  // namespace

const OpTemplate& matmul_template() {
  static const OpTemplate t{matmul_space, matmul_default, matmul_validate, matmul_build, {}, matmul_features};
  return t;
}

}  // namespace tensorperf::kernels::halide
