// dense: y[..., M] = x[..., K] * w[M, K]^T (+ epilogue). Leading dims of x are rows.
//
// Knobs:
//   layout        "packed": weights pre-packed to [M/m_block][K][m_block], vectorised over m (packing
//                 is not timed); "plain": weights read as given (strided loads)
//   m_block       output features per register tile (packed: a multiple of vector_width)
//   vector_width  SIMD lanes
//   tile_r        rows per register tile
//   k_block       reduction block (0: no split)
//   unroll        1: unroll the register tile's rows
//   parallel      "m": feature blocks; "rows": row tiles; "none"
#include <cmath>

#include "kernels/halide/halide_template.h"

namespace tensorperf::kernels::halide {
namespace {

using Halide::Func;
using Halide::ImageParam;
using Halide::RDom;
using Halide::TailStrategy;
using Halide::Var;

ConfigSpace dense_space(const ir::Workload&) {
  using J = nlohmann::json;
  return ConfigSpace{{
      {"layout", {J("packed"), J("plain")}},
      {"m_block", {J(8), J(16), J(32), J(64)}},
      {"vector_width", {J(4), J(8), J(16)}},
      {"tile_r", {J(1), J(2), J(4), J(8)}},
      {"k_block", {J(0), J(64), J(128), J(256)}},
      {"unroll", {J(0), J(1)}},
      {"parallel", {J("m"), J("rows"), J("none")}},
  }};
}

nlohmann::json dense_default(const ir::Workload&) {
  return {{"layout", "plain"}, {"m_block", 8}, {"vector_width", 8}, {"tile_r", 1},
          {"k_block", 0},      {"unroll", 0},  {"parallel", "m"}};
}

// w[M][K] -> packed(mi, k, mo), zero rows past M.
Halide::Buffer<float> pack_weights(const HostTensor& t, int mb) {
  int M = static_cast<int>(t.type().shape[0]), K = static_cast<int>(t.type().shape[1]);
  Halide::Buffer<float> p(mb, K, (M + mb - 1) / mb);
  p.fill(0.0f);
  for (int m = 0; m < M; ++m)
    for (int k = 0; k < K; ++k) p(m % mb, k, m / mb) = t.f32()[m * K + k];
  return p;
}

struct DenseKnobs {
  std::string layout, par;
  int mb, vw, tr, kb, unroll;
};

Result<DenseKnobs> read_dense_knobs(const Knobs& kn) {
  DenseKnobs d;
  TP_ASSIGN_OR_RETURN(d.layout, kn.get_string("layout"));
  TP_ASSIGN_OR_RETURN(d.mb, kn.get_int("m_block"));
  TP_ASSIGN_OR_RETURN(d.vw, kn.get_int("vector_width"));
  TP_ASSIGN_OR_RETURN(d.tr, kn.get_int("tile_r"));
  TP_ASSIGN_OR_RETURN(d.kb, kn.get_int("k_block"));
  TP_ASSIGN_OR_RETURN(d.unroll, kn.get_int("unroll"));
  TP_ASSIGN_OR_RETURN(d.par, kn.get_string("parallel"));
  const bool packed = d.layout == "packed";
  if (!packed && d.layout != "plain") return Status::InvalidArgument("layout must be packed or plain");
  if (d.mb < 1 || d.vw < 1 || d.tr < 1 || d.kb < 0) return Status::InvalidArgument("block sizes must be positive");
  if (packed && d.mb % d.vw != 0)
    return Status::InvalidArgument("packed layout needs m_block to be a multiple of vector_width");
  if (d.par != "m" && d.par != "rows" && d.par != "none")
    return Status::InvalidArgument("parallel must be m, rows or none");
  return d;
}

Status dense_validate(const ir::Workload&, const Knobs& kn) { return read_dense_knobs(kn).status(); }

// Schedule features of a valid config: register tile, tasks, reduction blocks, lane use.
Result<std::vector<double>> dense_features(const ir::Workload& w, const Knobs& kn) {
  TP_ASSIGN_OR_RETURN(const DenseKnobs d, read_dense_knobs(kn));
  const double K = static_cast<double>(w.inputs[1].shape[1]), M = static_cast<double>(w.inputs[1].shape[0]);
  const double R = static_cast<double>(w.output.num_elements()) / M;
  auto ceil_div = [](double a, double b) { return std::ceil(a / b); };
  auto lg = [](double v) { return std::log2(1.0 + v); };
  const double tasks = d.par == "m" ? ceil_div(M, d.mb) : d.par == "rows" ? ceil_div(R, d.tr) : 1;
  const double kb = d.kb > 0 && d.kb < K ? d.kb : K;
  return std::vector<double>{ceil_div(d.mb, d.vw) * d.tr, lg(tasks), lg(M * K * R / tasks), K / kb,
                             lg(4.0 * d.mb * kb), (ceil_div(M, d.mb) * d.mb - M) / M,
                             (d.mb % d.vw == 0 ? 1.0 : d.mb / (ceil_div(d.mb, d.vw) * d.vw))};
}

// Packed weights in register tiles of 1 to 4 vectors, with and without a reduction split.
std::vector<nlohmann::json> dense_seeds(const ir::Workload&, int vw) {
  std::vector<nlohmann::json> out;
  for (int mb : {vw, 2 * vw, 4 * vw})
    for (int kb : {0, 256})
      out.push_back({{"layout", "packed"},
                     {"m_block", mb},
                     {"vector_width", vw},
                     {"tile_r", 1},
                     {"k_block", kb},
                     {"unroll", 1},
                     {"parallel", "m"}});
  return out;
}

Result<Program> dense_build(const ir::Workload& w, const Knobs& kn) {
  TP_ASSIGN_OR_RETURN(const DenseKnobs d, read_dense_knobs(kn));
  const std::string& par = d.par;
  const int mb = d.mb, vw = d.vw, tr = d.tr, kb = d.kb, unroll = d.unroll;
  const bool packed = d.layout == "packed";

  const int K = static_cast<int>(w.inputs[1].shape[1]), M = static_cast<int>(w.inputs[1].shape[0]);
  const int R = static_cast<int>(w.output.num_elements() / M);
  Program prog;
  prog.inputs = make_params(w);
  // Everything row-shaped is seen as 2-D: x (K, R), output and add/mul tensors (M, R).
  prog.input_views[0] = {K, R};
  prog.inputs[0] = ImageParam(Halide::Float(32), 2, "x");
  for (size_t i = 2; i < prog.inputs.size(); ++i) {
    if (prog.inputs[i].dimensions() == 1) continue;  // bias
    prog.input_views[i] = {M, R};
    prog.inputs[i] = ImageParam(Halide::Float(32), 2, "in" + std::to_string(i));
  }
  prog.output_view = {M, R};
  ImageParam x = prog.inputs[0];

  Var m("m"), r("r"), mi("mi"), mo("mo");
  RDom k(0, K, "k");
  Func acc("acc");
  Halide::Expr value;
  if (packed) {
    ImageParam wp(Halide::Float(32), 3, "w_packed");
    prog.inputs[1] = wp;
    prog.packers[1] = [mb](const HostTensor& t) { return pack_weights(t, mb); };
    acc(mi, r, mo) = 0.0f;
    acc(mi, r, mo) += wp(mi, k, mo) * x(k, r);
    value = acc(m % mb, r, m / mb);
  } else {
    ImageParam wt = prog.inputs[1];
    acc(m, r) = 0.0f;
    acc(m, r) += wt(k, m) * x(k, r);
    value = acc(m, r);
  }
  Func out("out");
  out(m, r) = apply_epilogue(w, value, {m, r}, prog.inputs);

  prog.output = out;
  if (!kn.schedule()) return prog;  // the algorithm alone, for autoschedulers

  const TailStrategy guard = TailStrategy::GuardWithIf;
  Var mto("mto"), mti("mti"), ro("ro"), ri("ri");
  out.split(m, mto, mti, mb, guard).split(r, ro, ri, tr, guard).reorder(mti, ri, mto, ro);
  if (!packed) out.vectorize(mti, vw, guard);
  if (par == "m") out.parallel(mto);
  else if (par == "rows") out.parallel(ro);
  acc.compute_at(out, mto);
  schedule_matrix_accumulator(acc, packed ? mi : m, r, k, kb, K, vw, unroll);
  return prog;
}

}  // namespace

const OpTemplate& dense_template() {
  static const OpTemplate t{dense_space, dense_default, dense_validate, dense_build, dense_seeds, dense_features};
  return t;
}

}  // namespace tensorperf::kernels::halide
