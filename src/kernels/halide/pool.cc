// max_pool2d, avg_pool2d (ceil_mode via the IR's output size, count_include_pad), global_avg_pool2d.
//
// Knobs:
//   vector_width  SIMD lanes along output x
//   pad           padded input: "inline" (bounds checks per load) or "root" (a padded copy first)
//   parallel      "channels": one task per (n, c) plane; "rows": per (n, c, output row); "none"
//   unroll        1: unroll the pooling window
#include <limits>

#include "kernels/halide/halide_template.h"

namespace tensorperf::kernels::halide {
namespace {

using Halide::Expr;
using Halide::Func;
using Halide::RDom;
using Halide::TailStrategy;
using Halide::Var;

ConfigSpace pool_space(const ir::Workload&) {
  using J = nlohmann::json;
  return ConfigSpace{{
      {"vector_width", {J(1), J(4), J(8), J(16)}},
      {"pad", {J("inline"), J("root")}},
      {"parallel", {J("channels"), J("rows"), J("none")}},
      {"unroll", {J(0), J(1)}},
  }};
}

nlohmann::json pool_default(const ir::Workload&) {
  return {{"vector_width", 1}, {"pad", "inline"}, {"parallel", "channels"}, {"unroll", 0}};
}

struct PoolKnobs {
  int vw, unroll;
  std::string pad_at, par;
};

Result<PoolKnobs> read_pool_knobs(const Knobs& kn) {
  PoolKnobs p;
  TP_ASSIGN_OR_RETURN(p.vw, kn.get_int("vector_width"));
  TP_ASSIGN_OR_RETURN(p.pad_at, kn.get_string("pad"));
  TP_ASSIGN_OR_RETURN(p.par, kn.get_string("parallel"));
  TP_ASSIGN_OR_RETURN(p.unroll, kn.get_int("unroll"));
  if (p.vw < 1) return Status::InvalidArgument("vector_width must be >= 1");
  if (p.pad_at != "inline" && p.pad_at != "root") return Status::InvalidArgument("pad must be inline or root");
  if (p.par != "channels" && p.par != "rows" && p.par != "none")
    return Status::InvalidArgument("parallel must be channels, rows or none");
  return p;
}

Status pool_validate(const ir::Workload&, const Knobs& kn) { return read_pool_knobs(kn).status(); }

Result<Program> pool_build(const ir::Workload& w, const Knobs& kn) {
  TP_ASSIGN_OR_RETURN(const PoolKnobs pk, read_pool_knobs(kn));
  const int vw = pk.vw, unroll = pk.unroll;
  const std::string& pad_at = pk.pad_at;
  const std::string& par = pk.par;

  const ir::Shape& xs = w.inputs[0].shape;
  const int H = static_cast<int>(xs[2]), W = static_cast<int>(xs[3]);
  const bool global = w.op == ir::OpKind::kGlobalAvgPool2d;
  const bool is_max = w.op == ir::OpKind::kMaxPool2d;
  auto kernel = global ? std::vector<int64_t>{H, W} : w.attrs.get_ints("kernel", {1, 1});
  auto strides = w.attrs.get_ints("strides", {1, 1});
  auto pads = w.attrs.get_ints("pads", {0, 0, 0, 0});
  auto dil = is_max ? w.attrs.get_ints("dilations", {1, 1}) : std::vector<int64_t>{1, 1};
  const bool include_pad = w.attrs.get_int("count_include_pad", 0) != 0;
  auto i32 = [](int64_t v) { return static_cast<int>(v); };

  Program prog;
  prog.inputs = make_params(w);
  Var x("x"), y("y"), c("c"), n("n");
  Func padded("padded");
  const float fill = is_max ? -std::numeric_limits<float>::infinity() : 0.0f;
  Func bounded = Halide::BoundaryConditions::constant_exterior(prog.inputs[0], fill, {{0, W}, {0, H}});
  padded(x, y, c, n) = bounded(x, y, c, n);
  RDom r(0, i32(kernel[1]), 0, i32(kernel[0]), "r");
  Expr ix = x * i32(strides[1]) + r.x * i32(dil[1]) - i32(pads[1]);
  Expr iy = y * i32(strides[0]) + r.y * i32(dil[0]) - i32(pads[0]);
  Func pooled("pooled");
  Expr value;
  if (is_max) {
    pooled(x, y, c, n) = fill;
    pooled(x, y, c, n) = Halide::max(pooled(x, y, c, n), padded(ix, iy, c, n));
    value = pooled(x, y, c, n);
  } else {
    pooled(x, y, c, n) = 0.0f;
    pooled(x, y, c, n) += padded(ix, iy, c, n);
    Expr x0 = x * i32(strides[1]) - i32(pads[1]), y0 = y * i32(strides[0]) - i32(pads[0]);
    Expr count;
    if (include_pad) {  // PyTorch: the window clipped to the padded input
      count = (Halide::min(y0 + i32(kernel[0]), H + i32(pads[2])) - y0) * (Halide::min(x0 + i32(kernel[1]), W + i32(pads[3])) - x0);
    } else {
      count = (Halide::min(y0 + i32(kernel[0]), H) - Halide::max(y0, 0)) * (Halide::min(x0 + i32(kernel[1]), W) - Halide::max(x0, 0));
    }
    value = pooled(x, y, c, n) / Halide::cast<float>(Halide::max(count, 1));
  }
  Func out("out");
  out(x, y, c, n) = apply_epilogue(w, value, {x, y, c, n}, prog.inputs);

  prog.output = out;
  if (!kn.schedule()) return prog;  // the algorithm alone, for autoschedulers

  Var plane("plane"), row("row");
  out.fuse(c, n, plane);
  if (par == "channels") out.parallel(plane);
  else if (par == "rows") out.fuse(y, plane, row).parallel(row);
  if (vw > 1) out.vectorize(x, vw, TailStrategy::GuardWithIf);
  pooled.compute_at(out, x);
  pooled.update().reorder(x, r.x, r.y);
  if (vw > 1) {  // the last vector of a row may be partial: guarded lanes
    pooled.vectorize(x, vw, TailStrategy::GuardWithIf);
    pooled.update().vectorize(x, vw, TailStrategy::GuardWithIf);
  }
  if (unroll) pooled.update().unroll(r.x);
  if (pad_at == "root") padded.compute_root().parallel(n);
  return prog;
}

}  // namespace

const OpTemplate& pool_template() {
  static const OpTemplate t{pool_space, pool_default, pool_validate, pool_build};
  return t;
}

}  // namespace tensorperf::kernels::halide
