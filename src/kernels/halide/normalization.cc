// softmax (over one axis) and layer_norm (over the trailing axes from `axis`).
//
// Knobs (both):
//   vector_width  SIMD lanes along the innermost output dim
//   stats         where the per-row statistics (max/sum, mean/variance) are computed: "root" (all rows
//                 first) or "row" (inside each row's loop)
//   parallel      "rows" or "none"
// softmax only:
//   exp           "inline" (exp recomputed for the sum and the output) or "row" (stored per row; with
//                 stats=row only)
#include "kernels/halide/halide_template.h"

namespace tensorperf::kernels::halide {
namespace {

using Halide::Expr;
using Halide::Func;
using Halide::RDom;
using Halide::TailStrategy;
using Halide::Var;

int64_t normalized_axis(const ir::Workload& w) {
  int64_t axis = w.attrs.get_int("axis", -1);
  return axis < 0 ? axis + w.inputs[0].rank() : axis;
}

struct Common {
  int vw;
  std::string stats, par;
};

Result<Common> common_knobs(const Knobs& kn) {
  Common c;
  TP_ASSIGN_OR_RETURN(c.vw, kn.get_int("vector_width"));
  TP_ASSIGN_OR_RETURN(c.stats, kn.get_string("stats"));
  TP_ASSIGN_OR_RETURN(c.par, kn.get_string("parallel"));
  if (c.vw < 1) return Status::InvalidArgument("vector_width must be >= 1");
  if (c.stats != "root" && c.stats != "row") return Status::InvalidArgument("stats must be root or row");
  if (c.par != "rows" && c.par != "none") return Status::InvalidArgument("parallel must be rows or none");
  return c;
}

std::vector<Knob> common_space() {
  using J = nlohmann::json;
  return {{"vector_width", {J(1), J(4), J(8), J(16)}}, {"stats", {J("root"), J("row")}}, {"parallel", {J("rows"), J("none")}}};
}

ConfigSpace softmax_space(const ir::Workload&) {
  ConfigSpace s{common_space()};
  s.knobs.push_back({"exp", {nlohmann::json("inline"), nlohmann::json("row")}});
  return s;
}

// Defaults: vectors along the rows (one lane ran BERT's 12x128x128 softmax 3.2x and its layer
// norms 1.5x slower on the Intel host of 2026-12-02), one thread (a parallel task per row cost more
// than it saved there).
nlohmann::json softmax_default(const ir::Workload& w) {
  return {{"vector_width", row_vector_width(w)}, {"stats", "root"}, {"parallel", "none"}, {"exp", "inline"}};
}

Result<std::string> exp_knob(const Knobs& kn) {
  TP_ASSIGN_OR_RETURN(std::string exp_at, kn.get_string("exp"));
  if (exp_at != "inline" && exp_at != "row") return Status::InvalidArgument("exp must be inline or row");
  return exp_at;
}

Status softmax_validate(const ir::Workload&, const Knobs& kn) {
  TP_ASSIGN_OR_RETURN(Common c, common_knobs(kn));
  TP_ASSIGN_OR_RETURN(std::string exp_at, exp_knob(kn));
  // A row's stored exponentials live inside the output's row loop; statistics computed for all rows
  // first read them before that loop exists.
  if (exp_at == "row" && c.stats == "root") return Status::InvalidArgument("exp=row needs stats=row");
  return Status::Ok();
}

Status layer_norm_validate(const ir::Workload&, const Knobs& kn) { return common_knobs(kn).status(); }

// x seen as (inner, len, outer): the softmax runs along the middle dim.
Result<Program> softmax_build(const ir::Workload& w, const Knobs& kn) {
  TP_ASSIGN_OR_RETURN(Common c, common_knobs(kn));
  TP_ASSIGN_OR_RETURN(std::string exp_at, exp_knob(kn));
  const ir::Shape& s = w.inputs[0].shape;
  const int64_t axis = normalized_axis(w);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= s[d];
  for (size_t d = axis + 1; d < s.size(); ++d) inner *= s[d];
  const int len = static_cast<int>(s[axis]);
  std::vector<int> view = {static_cast<int>(inner), len, static_cast<int>(outer)};

  Program prog;
  prog.inputs = {Halide::ImageParam(Halide::Float(32), 3, "x")};
  prog.input_views[0] = view;
  prog.output_view = view;
  Halide::ImageParam x = prog.inputs[0];
  Var i("i"), k("k"), o("o");
  RDom r(0, len, "r");
  Func mx("mx"), e("e"), total("total"), out("out");
  mx(i, o) = Halide::maximum(x(i, r, o));
  e(i, k, o) = Halide::exp(x(i, k, o) - mx(i, o));
  total(i, o) = Halide::sum(e(i, r, o));
  out(i, k, o) = e(i, k, o) / total(i, o);

  prog.output = out;
  if (!kn.schedule()) return prog;  // the algorithm alone, for autoschedulers

  Var vec = inner > 1 ? i : k;
  out.vectorize(vec, c.vw, TailStrategy::GuardWithIf);
  if (c.par == "rows") out.parallel(o);
  if (c.stats == "root") {
    mx.compute_root();
    total.compute_root();
    if (c.par == "rows") {
      mx.parallel(o);
      total.parallel(o);
    }
  } else {
    mx.compute_at(out, o);
    total.compute_at(out, o);
  }
  if (inner > 1) {
    mx.vectorize(i, c.vw, TailStrategy::GuardWithIf);
    total.vectorize(i, c.vw, TailStrategy::GuardWithIf);
  }
  if (exp_at == "row") {
    e.compute_at(out, o).vectorize(vec, c.vw, TailStrategy::GuardWithIf);
  }
  return prog;
}

ConfigSpace layer_norm_space(const ir::Workload&) { return ConfigSpace{common_space()}; }

nlohmann::json layer_norm_default(const ir::Workload& w) {
  return {{"vector_width", row_vector_width(w)}, {"stats", "root"}, {"parallel", "none"}};
}

// x seen as (inner, outer) with inner = prod(shape[axis:]); gamma and beta as (inner).
Result<Program> layer_norm_build(const ir::Workload& w, const Knobs& kn) {
  TP_ASSIGN_OR_RETURN(Common c, common_knobs(kn));
  const ir::Shape& s = w.inputs[0].shape;
  const int64_t axis = normalized_axis(w);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d) (d < axis ? outer : inner) *= s[d];
  const float eps = static_cast<float>(w.attrs.get_float("epsilon", 1e-5));
  Program prog;
  for (const char* name : {"x", "gamma", "beta"}) prog.inputs.emplace_back(Halide::Float(32), name[0] == 'x' ? 2 : 1, name);
  prog.input_views[0] = {static_cast<int>(inner), static_cast<int>(outer)};
  prog.input_views[1] = {static_cast<int>(inner)};
  prog.input_views[2] = {static_cast<int>(inner)};
  prog.output_view = prog.input_views[0];
  Halide::ImageParam x = prog.inputs[0], gamma = prog.inputs[1], beta = prog.inputs[2];
  Var i("i"), o("o");
  RDom r(0, static_cast<int>(inner), "r");
  Func mean("mean"), var("var"), out("out");
  const float inv_n = 1.0f / static_cast<float>(inner);
  mean(o) = Halide::sum(x(r, o)) * inv_n;
  Expr d = x(r, o) - mean(o);
  var(o) = Halide::sum(d * d) * inv_n;
  out(i, o) = (x(i, o) - mean(o)) * (1.0f / Halide::sqrt(var(o) + eps)) * gamma(i) + beta(i);
  prog.output = out;
  if (!kn.schedule()) return prog;  // the algorithm alone, for autoschedulers

  out.vectorize(i, c.vw, TailStrategy::GuardWithIf);
  if (c.par == "rows") out.parallel(o);
  if (c.stats == "root") {
    mean.compute_root();
    var.compute_root();
    if (c.par == "rows") {
      mean.parallel(o);
      var.parallel(o);
    }
  } else {
    mean.compute_at(out, o);
    var.compute_at(out, o);
  }
  return prog;
}

}  // namespace

const OpTemplate& softmax_template() {
  static const OpTemplate t{softmax_space, softmax_default, softmax_validate, softmax_build};
  return t;
}

const OpTemplate& layer_norm_template() {
  static const OpTemplate t{layer_norm_space, layer_norm_default, layer_norm_validate, layer_norm_build};
  return t;
}

}  // namespace tensorperf::kernels::halide
