// conv2d (groups, dilation, stride, pads) with a fused epilogue.
//
// Knobs:
//   layout        "nchwc": output channels computed in blocks of oc_block, vectorised over the block,
//                 weights pre-packed to [O/oc_block][KH][KW][C/g][oc_block] (packing is not timed);
//                 "nchw": plain layout, vectorised along output x, weights read as given.
//   oc_block      output channels per register tile (nchwc: the vector block, a multiple of vector_width)
//   vector_width  SIMD lanes
//   tile_x, tile_y  output pixels per register tile (non-divisors allowed)
//   tail          how a partial last tile is handled: "guard" (a shorter tile) or "shift_inwards" (a
//                 full tile overlapping the previous one; needs the tile to fit the output)
//   compute_at    "tile": accumulate each register tile to completion; "row": accumulate a whole strip
//                 of tile_y rows, looping over tiles inside each reduction-channel block
//   rc_block      reduction-channel block (0: no split)
//   reduce_order  "c_k": channels innermost, then kernel x, y; "k_c": kernel window innermost
//   pad           padded input: "inline" (bounds checks in the inner loop), "root" (padded copy of the
//                 whole input first), "row" (padded rows per parallel task)
//   unroll        1: unroll the register tile
//   parallel      "rows": channel blocks x row strips; "oc": channel blocks; "none"
//   strip         register-tile rows (tile_y output rows each) per row strip: the unit of a "rows"
//                 parallel task, of compute_at "row" and of pad "row" (0: the whole output height;
//                 clamped to it). With compute_at "row" a strip loops rc blocks -> tile rows -> tiles
//                 -> the reduction inside, so one weight block (oc_block x rc_block x KH x KW) is
//                 reused over every pixel of the strip. 1 (the value when absent, as in configs stored
//                 before the knob): strips of tile_y rows.
//   pad_tasks     pad "root": parallel tasks of the padded copy, input channels split into that many
//                 chunks (0, the value when absent: one task per channel, which at 512 channels of 9x9
//                 costs more in task overhead than the copy itself).
//   static_shapes 1: compiled for the workload's exact buffers (bounds and dense strides pinned), so
//                 tile counts and indices fold to constants; 0 (the value when absent): any buffer.
//   skip_pad      kernel-window taps that read the zero padding are skipped instead of multiplied:
//                 "none" (the value when absent), "rows" (the window's rows outside the input: the
//                 reduction loop is trimmed per output row), "all" (rows and columns; the window's
//                 columns are unrolled, so each register-tile pixel's column test folds to a constant
//                 where the tile's position is known: nchwc and reduce_order c_k only). Only padded
//                 convolutions have values other than "none". At 7x7 outputs with 3x3 windows, 18% of
//                 the taps read padding.
#include <algorithm>
#include <cmath>

#include "kernels/halide/halide_template.h"

namespace tensorperf::kernels::halide {
namespace {

using Halide::Expr;
using Halide::Func;
using Halide::ImageParam;
using Halide::RDom;
using Halide::RVar;
using Halide::TailStrategy;
using Halide::Var;

constexpr int kMaxUnrolledAccumulators = 32;  // AVX-512 has 32 vector registers

struct ConvShape {
  int N, C, H, W, O, Cg, KH, KW, OH, OW, groups;
  int sy, sx, pt, pl, pb, pr, dy, dx;
  bool padded() const { return pt > 0 || pl > 0 || pb > 0 || pr > 0; }
};

ConvShape conv_shape(const ir::Workload& w) {
  const auto& xs = w.inputs[0].shape;
  const auto& ws = w.inputs[1].shape;
  auto s = w.attrs.get_ints("strides", {1, 1});
  auto p = w.attrs.get_ints("pads", {0, 0, 0, 0});
  auto d = w.attrs.get_ints("dilations", {1, 1});
  auto i = [](int64_t v) { return static_cast<int>(v); };
  return ConvShape{i(xs[0]), i(xs[1]), i(xs[2]), i(xs[3]), i(ws[0]), i(ws[1]), i(ws[2]), i(ws[3]),
                   i(w.output.shape[2]), i(w.output.shape[3]), i(w.attrs.get_int("groups", 1)),
                   i(s[0]), i(s[1]), i(p[0]), i(p[1]), i(p[2]), i(p[3]), i(d[0]), i(d[1])};
}

ConfigSpace conv2d_space(const ir::Workload& w) {
  using J = nlohmann::json;
  const bool padded = conv_shape(w).padded();
  return ConfigSpace{{
      {"layout", {J("nchwc"), J("nchw")}},
      {"oc_block", {J(1), J(4), J(8), J(16), J(32), J(64)}},
      {"vector_width", {J(4), J(8), J(16)}},
      {"tile_x", {J(1), J(2), J(4), J(6), J(7), J(8), J(14), J(16), J(28)}},
      {"tile_y", {J(1), J(2), J(4)}},
      {"tail", {J("guard"), J("shift_inwards")}},
      {"compute_at", {J("tile"), J("row")}},
      {"rc_block", {J(0), J(8), J(16), J(32), J(64), J(128)}},
      {"reduce_order", {J("c_k"), J("k_c")}},
      {"pad", {J("inline"), J("root"), J("row")}},
      {"unroll", {J(0), J(1)}},
      {"parallel", {J("rows"), J("oc"), J("none")}},
      {"strip", {J(1), J(2), J(4), J(7), J(14), J(0)}},
      {"pad_tasks", {J(0), J(2), J(8)}},
      {"static_shapes", {J(0), J(1)}},
      {"skip_pad", padded ? std::vector<J>{J("none"), J("rows"), J("all")} : std::vector<J>{J("none")}},
  }};
}

nlohmann::json conv2d_default(const ir::Workload&) {
  return {
      {"layout", "nchw"},  {"oc_block", 1},        {"vector_width", 8}, {"tile_x", 8},           {"tile_y", 1},
      {"tail", "guard"},   {"compute_at", "tile"}, {"rc_block", 0},     {"reduce_order", "c_k"}, {"pad", "root"},
      {"unroll", 0},       {"parallel", "rows"},   {"strip", 1},        {"pad_tasks", 0},        {"static_shapes", 0},
      {"skip_pad", "none"}};
}

// w[O][Cg][KH][KW] -> packed(oi, rc, kx, ky, oo) (Halide order), zero for channels >= O.
Halide::Buffer<float> pack_weights(const HostTensor& t, int ob) {
  const auto& s = t.type().shape;
  int O = static_cast<int>(s[0]), Cg = static_cast<int>(s[1]), KH = static_cast<int>(s[2]), KW = static_cast<int>(s[3]);
  int blocks = (O + ob - 1) / ob;
  Halide::Buffer<float> p(ob, Cg, KW, KH, blocks);
  p.fill(0.0f);
  const float* w = t.f32();
  for (int o = 0; o < O; ++o)
    for (int c = 0; c < Cg; ++c)
      for (int ky = 0; ky < KH; ++ky)
        for (int kx = 0; kx < KW; ++kx) p(o % ob, c, kx, ky, o / ob) = w[((o * Cg + c) * KH + ky) * KW + kx];
  return p;
}

// The knobs of one config, read and checked against the workload (what validate() and build() share).
struct ConvKnobs {
  std::string layout, tail_name, at, order, pad_at, par, skip_pad;
  int ob, vw, tx, ty, rcb, unroll, strip, pad_tasks, static_shapes;
  TailStrategy tail;
  bool blocked;
};

Result<ConvKnobs> read_conv_knobs(const ir::Workload& w, const Knobs& k) {
  const ConvShape s = conv_shape(w);
  ConvKnobs c;
  TP_ASSIGN_OR_RETURN(c.layout, k.get_string("layout"));
  TP_ASSIGN_OR_RETURN(c.ob, k.get_int("oc_block"));
  TP_ASSIGN_OR_RETURN(c.vw, k.get_int("vector_width"));
  TP_ASSIGN_OR_RETURN(c.tx, k.get_int("tile_x"));
  TP_ASSIGN_OR_RETURN(c.ty, k.get_int("tile_y"));
  TP_ASSIGN_OR_RETURN(c.tail_name, k.get_string("tail"));
  TP_ASSIGN_OR_RETURN(c.tail, tail_strategy(c.tail_name));
  TP_ASSIGN_OR_RETURN(c.at, k.get_string("compute_at"));
  TP_ASSIGN_OR_RETURN(c.rcb, k.get_int("rc_block"));
  TP_ASSIGN_OR_RETURN(c.order, k.get_string("reduce_order"));
  TP_ASSIGN_OR_RETURN(c.pad_at, k.get_string("pad"));
  TP_ASSIGN_OR_RETURN(c.unroll, k.get_int("unroll"));
  TP_ASSIGN_OR_RETURN(c.par, k.get_string("parallel"));
  TP_ASSIGN_OR_RETURN(c.strip, k.get_int("strip", 1));
  TP_ASSIGN_OR_RETURN(c.pad_tasks, k.get_int("pad_tasks", 0));
  TP_ASSIGN_OR_RETURN(c.static_shapes, k.get_int("static_shapes", 0));
  TP_ASSIGN_OR_RETURN(c.skip_pad, k.get_string("skip_pad", "none"));
  c.blocked = c.layout == "nchwc";
  if (!c.blocked && c.layout != "nchw")
    return Status::InvalidArgument("layout must be nchwc or nchw, got '" + c.layout + "'");
  if (c.ob < 1 || c.vw < 1 || c.tx < 1 || c.ty < 1 || c.rcb < 0 || c.strip < 0 || c.pad_tasks < 0)
    return Status::InvalidArgument(
        "oc_block, vector_width, tile_x, tile_y must be >= 1 and rc_block, strip, pad_tasks >= 0");
  if (c.blocked && c.ob % c.vw != 0)
    return Status::InvalidArgument("nchwc needs oc_block (" + std::to_string(c.ob) +
                                   ") to be a multiple of vector_width (" + std::to_string(c.vw) + ")");
  if (c.tail == TailStrategy::RoundUp) return Status::InvalidArgument("tail round_up would write past the output");
  if (c.tail == TailStrategy::ShiftInwards && (c.tx > s.OW || c.ty > s.OH))
    return Status::InvalidArgument("tail shift_inwards needs tile_x <= output width and tile_y <= output height");
  // Unrolling a tile larger than the register file only spills and makes LLVM crawl (minutes).
  const int accumulators = c.blocked ? (c.ob / c.vw) * c.tx * c.ty : ((c.tx + c.vw - 1) / c.vw) * c.ob * c.ty;
  if (c.unroll && accumulators > kMaxUnrolledAccumulators)
    return Status::InvalidArgument("unrolled register tile of " + std::to_string(accumulators) +
                                   " vectors is too large (at most " + std::to_string(kMaxUnrolledAccumulators) + ")");
  if (c.at != "tile" && c.at != "row") return Status::InvalidArgument("compute_at must be tile or row");
  if (c.order != "c_k" && c.order != "k_c") return Status::InvalidArgument("reduce_order must be c_k or k_c");
  if (c.pad_at != "inline" && c.pad_at != "root" && c.pad_at != "row")
    return Status::InvalidArgument("pad must be inline, root or row");
  if (c.par != "rows" && c.par != "oc" && c.par != "none")
    return Status::InvalidArgument("parallel must be rows, oc or none");
  if (c.static_shapes != 0 && c.static_shapes != 1) return Status::InvalidArgument("static_shapes must be 0 or 1");
  // Found by the dataset's synthetic shapes (2026-11-28): two NCHW depthwise configs of this kind computed
  // wrong outputs (193 channels at 20x20 with tile_x 14; 198 at 15x15 with tile_x 7), and static_shapes
  // 0, compute_at tile, or (for the first) vector_width 1 or a tile_x that divides the width made them
  // right. The Halide 14 lowering at fault is not pinned down, so the whole family is left out (about
  // 2% of the valid configs of three small convolutions, none of them wrong when drawn at random).
  if (c.static_shapes == 1 && !c.blocked && c.at == "row" && c.vw > 1 && s.OW % c.tx != 0)
    return Status::InvalidArgument("static_shapes 1 with layout nchw, compute_at row and a partial last tile (tile_x " +
                                   std::to_string(c.tx) + " of output width " + std::to_string(s.OW) +
                                   ") computes wrong outputs: use static_shapes 0");
  // Found by the depthwise seeds' test (2026-11-29): NCHW register tiles of one row and 4-wide vectors
  // wider than an output whose width is a multiple of 4 (16 or 28 pixels over 8, 12 or 24), compiled
  // for static shapes, wrote outside the output (heap corruption) and computed wrong values; vectors
  // of 8 or 16, 2 or 4 rows, static_shapes 0, NCHWc, or widths of 4, 11, 13, 15 and 16 were right.
  if (c.static_shapes == 1 && !c.blocked && c.vw == 4 && c.ty == 1 && c.tx > s.OW && s.OW > 4 && s.OW % 4 == 0)
    return Status::InvalidArgument("static_shapes 1 with layout nchw, vector_width 4, tile_y 1 and tile_x " +
                                   std::to_string(c.tx) + " wider than the output (" + std::to_string(s.OW) +
                                   ") writes outside it: use static_shapes 0 or a tile no wider than the output");
  if (c.skip_pad != "none" && c.skip_pad != "rows" && c.skip_pad != "all")
    return Status::InvalidArgument("skip_pad must be none, rows or all");
  if (c.skip_pad != "none" && !s.padded())
    return Status::InvalidArgument("skip_pad " + c.skip_pad + " needs a padded convolution");
  if (c.skip_pad == "all" && (!c.blocked || c.order != "c_k"))
    return Status::InvalidArgument("skip_pad all needs layout nchwc and reduce_order c_k");
  return c;
}

Status conv2d_validate(const ir::Workload& w, const Knobs& k) { return read_conv_knobs(w, k).status(); }

Result<Program> conv2d_build(const ir::Workload& w, const Knobs& k) {
  const ConvShape s = conv_shape(w);
  TP_ASSIGN_OR_RETURN(const ConvKnobs c, read_conv_knobs(w, k));
  const std::string& at = c.at;
  const std::string& order = c.order;
  const std::string& pad_at = c.pad_at;
  const std::string& par = c.par;
  const int ob = c.ob, vw = c.vw, tx = c.tx, ty = c.ty, rcb = c.rcb, unroll = c.unroll, strip = c.strip;
  const int pad_tasks = c.pad_tasks;
  const TailStrategy tail = c.tail;
  const bool blocked = c.blocked;

  Program prog;
  prog.inputs = make_params(w);
  ImageParam x = prog.inputs[0];
  const int Og = s.O / s.groups;

  Var ix("ix"), iy("iy"), ic("ic"), n("n"), ox("ox"), oy("oy"), o("o"), oi("oi"), oo("oo");
  Func padded("padded");
  if (s.padded()) {
    Func bounded = Halide::BoundaryConditions::constant_exterior(x, 0.0f, {{0, s.W}, {0, s.H}});
    padded(ix, iy, ic, n) = bounded(ix, iy, ic, n);
  } else {
    padded(ix, iy, ic, n) = x(ix, iy, ic, n);
  }
  RDom r(0, s.Cg, 0, s.KW, 0, s.KH, "r");
  RVar rc = r.x, rkx = r.y, rky = r.z;
  auto in_x = [&](Expr px) { return px * s.sx + rkx * s.dx - s.pl; };
  auto in_y = [&](Expr py) { return py * s.sy + rky * s.dy - s.pt; };
  if (c.skip_pad != "none") {
    Expr tap = in_y(oy) >= 0 && in_y(oy) < s.H;
    if (c.skip_pad == "all") tap = tap && in_x(ox) >= 0 && in_x(ox) < s.W;
    r.where(tap);
  }

  Func conv("conv");
  Expr value;
  if (blocked) {
    ImageParam wp(Halide::Float(32), 5, "w_packed");
    prog.inputs[1] = wp;
    prog.packers[1] = [ob](const HostTensor& t) { return pack_weights(t, ob); };
    Expr chan = s.groups == 1 ? Expr(rc) : (Halide::min(oo * ob + oi, s.O - 1) / Og) * s.Cg + rc;
    conv(oi, ox, oy, oo, n) = 0.0f;
    conv(oi, ox, oy, oo, n) += wp(oi, rc, rkx, rky, oo) * padded(in_x(ox), in_y(oy), chan, n);
    value = conv(o % ob, ox, oy, o / ob, n);
  } else {
    ImageParam wt = prog.inputs[1];
    Expr chan = s.groups == 1 ? Expr(rc) : (o / Og) * s.Cg + rc;
    conv(ox, oy, o, n) = 0.0f;
    conv(ox, oy, o, n) += wt(rkx, rky, rc, o) * padded(in_x(ox), in_y(oy), chan, n);
    value = conv(ox, oy, o, n);
  }
  Func out("out");
  out(ox, oy, o, n) = apply_epilogue(w, value, {ox, oy, o, n}, prog.inputs);

  prog.output = out;
  if (c.static_shapes) TP_RETURN_IF_ERROR(pin_shapes(prog, w).status());
  if (!k.schedule()) return prog;  // the algorithm alone, for autoschedulers

  // Output loops: n, o blocks, row strips, x tiles; inside a tile x fastest (NCHW stores).
  Var xo("xo"), xi("xi"), yo("yo"), yi("yi"), ooo("ooo"), oii("oii"), task("task");
  const TailStrategy guard = TailStrategy::GuardWithIf;
  out.split(o, ooo, oii, ob, guard).split(oy, yo, yi, ty, tail).split(ox, xo, xi, tx, tail);
  // Row strips of `strip` tile rows (yt: tile rows inside a strip, ys: strips); one strip of a
  // single tile row keeps the loop nest from before the knob.
  const int tile_rows = (s.OH + ty - 1) / ty;
  const int strip_tiles = strip == 0 ? tile_rows : std::min(strip, tile_rows);
  const bool strips = strip_tiles > 1;
  Var ys("ys"), yt("yt");
  if (strips) {
    out.split(yo, ys, yt, strip_tiles, guard);
    out.reorder(xi, oii, yi, xo, yt, ys, ooo, n);
  } else {
    out.reorder(xi, oii, yi, xo, yo, ooo, n);
  }
  Var row_loop = strips ? ys : yo;
  if (par == "rows") {
    out.fuse(row_loop, ooo, task).parallel(task);
    row_loop = task;
  } else if (par == "oc") {
    out.parallel(ooo);
  }
  if (!blocked && tx % vw == 0) out.vectorize(xi, vw);

  // The accumulation: register tile = (oc_block x tile_x x tile_y).
  const bool split_rc = rcb > 0 && rcb < s.Cg;
  RVar rco("rco"), rci("rci");
  if (split_rc) conv.update().split(rc, rco, rci, rcb, guard);
  std::vector<Halide::VarOrRVar> reduce_inner;
  RVar rc_inner = split_rc ? rci : rc;
  if (order == "c_k") reduce_inner = {rc_inner, rkx, rky};
  else reduce_inner = {rkx, rky, rc_inner};

  Var cx = ox, cy = oy;
  Var cxo("cxo"), cxi("cxi"), cyi("cyi");
  std::vector<Halide::VarOrRVar> loops;
  if (blocked) {
    conv.vectorize(oi, vw);  // the initialisation
    loops = {oi};
  } else {
    loops = {};
  }
  if (at == "tile") {
    conv.compute_at(out, xo);
    if (blocked) {
      loops.insert(loops.end(), {cx, cy});
    } else {
      conv.update().split(cx, cxo, cxi, vw, guard);
      loops.insert(loops.end(), {cxi, cxo, o, cy});
    }
    loops.insert(loops.end(), reduce_inner.begin(), reduce_inner.end());
    if (split_rc) loops.push_back(rco);
  } else {
    conv.compute_at(out, row_loop);
    Var tile_x("tile_x"), tile_y("tile_y");
    conv.update().split(cx, tile_x, cxi, tx, guard);
    if (strips) conv.update().split(cy, tile_y, cyi, ty, guard);
    Var ry = strips ? cyi : cy;  // the register tile's rows
    if (blocked) {
      loops.insert(loops.end(), {cxi, ry});
    } else {
      Var vxi("vxi"), vxo("vxo");
      conv.update().split(cxi, vxo, vxi, vw, guard);
      loops.insert(loops.end(), {vxi, vxo, o, ry});
    }
    loops.insert(loops.end(), reduce_inner.begin(), reduce_inner.end());
    loops.push_back(tile_x);
    if (strips) loops.push_back(tile_y);
    if (split_rc) loops.push_back(rco);
  }
  conv.update().reorder(loops);
  if (c.skip_pad == "all") conv.update().unroll(rkx);  // column tests fold per unrolled tap
  // vectorize(v, factor) keeps v's name on the outer part: unrolling it keeps all lanes in registers.
  if (blocked) {
    conv.unroll(oi);
    conv.update().vectorize(oi, vw).unroll(oi);
    if (unroll) conv.update().unroll(at == "tile" ? cx : cxi).unroll(at == "row" && strips ? cyi : cy);
  } else {
    conv.vectorize(ox, vw, guard);
    conv.update().vectorize(loops[0]);
    if (unroll) conv.update().unroll(loops[1]).unroll(o).unroll(at == "row" && strips ? cyi : cy);
  }

  if (pad_at == "root") {
    padded.compute_root();
    if (pad_tasks > 0 && pad_tasks < s.C) {
      Var ico("ico"), ici("ici");
      padded.split(ic, ico, ici, (s.C + pad_tasks - 1) / pad_tasks, guard).parallel(ico);
    } else {
      padded.parallel(ic);
    }
    padded.vectorize(ix, vw, guard);
  } else if (pad_at == "row") {
    padded.compute_at(out, row_loop).vectorize(ix, vw, guard);
  }
  return prog;
}

// Schedule features of a valid config: what the knobs make of this convolution's loop nest.
Result<std::vector<double>> conv2d_features(const ir::Workload& w, const Knobs& k) {
  TP_ASSIGN_OR_RETURN(const ConvKnobs c, read_conv_knobs(w, k));
  const ConvShape s = conv_shape(w);
  auto ceil_div = [](double a, double b) { return std::ceil(a / b); };
  auto lg = [](double v) { return std::log2(1.0 + v); };
  const double accumulators =
      c.blocked ? (c.ob / c.vw) * c.tx * c.ty : ceil_div(c.tx, c.vw) * c.ob * c.ty;  // vector registers
  const double oc_blocks = ceil_div(s.O, c.ob);
  const double tile_rows = ceil_div(s.OH, c.ty);
  const double strip_tiles = c.strip == 0 ? tile_rows : std::min<double>(c.strip, tile_rows);
  const double strips = ceil_div(tile_rows, strip_tiles);
  const double tasks = c.par == "rows" ? oc_blocks * strips : c.par == "oc" ? oc_blocks : 1;
  const int rc = c.rcb > 0 && c.rcb < s.Cg ? c.rcb : s.Cg;
  const double weight_block = 4.0 * c.ob * rc * s.KH * s.KW;  // bytes reused over a tile or strip
  const double in_w = (c.tx - 1) * s.sx + (s.KW - 1) * s.dx + 1, in_h = (c.ty - 1) * s.sy + (s.KH - 1) * s.dy + 1;
  const double input_tile = 4.0 * in_w * in_h * rc;
  const double strip_rows = (c.at == "row" ? strip_tiles : 1) * c.ty;
  const double x_waste = (ceil_div(s.OW, c.tx) * c.tx - s.OW) / s.OW;
  const double y_waste = (tile_rows * c.ty - s.OH) / s.OH;
  const double oc_waste = (oc_blocks * c.ob - s.O) / s.O;
  const double lane_use = c.blocked ? 1.0 : (c.tx % c.vw == 0 ? 1.0 : c.tx / (ceil_div(c.tx, c.vw) * c.vw));
  const double macs = static_cast<double>(s.N) * s.O * s.OH * s.OW * s.Cg * s.KH * s.KW;
  // The share of the window's taps that land inside the input, along one dimension.
  auto inside = [](int out, int k, int stride, int dilation, int pad, int in) {
    int n = 0;
    for (int o = 0; o < out; ++o)
      for (int t = 0; t < k; ++t) n += o * stride + t * dilation - pad >= 0 && o * stride + t * dilation - pad < in;
    return static_cast<double>(n) / (static_cast<double>(out) * k);
  };
  const double rows_inside = inside(s.OH, s.KH, s.sy, s.dy, s.pt, s.H);
  const double cols_inside = inside(s.OW, s.KW, s.sx, s.dx, s.pl, s.W);
  const double taps_skipped = c.skip_pad == "rows"  ? 1 - rows_inside
                              : c.skip_pad == "all" ? 1 - rows_inside * cols_inside
                                                    : 0.0;
  return std::vector<double>{accumulators,
                             accumulators / kMaxUnrolledAccumulators,
                             lg(tasks),
                             lg(macs / tasks),
                             lg(weight_block),
                             lg(input_tile),
                             lg(weight_block + input_tile),
                             static_cast<double>(s.Cg) / rc,
                             strip_rows,
                             x_waste,
                             y_waste,
                             oc_waste,
                             lane_use,
                             lg(c.tx * c.ty * c.ob),
                             static_cast<double>(c.pad_at == "root" ? (c.pad_tasks > 0 ? c.pad_tasks : s.C) : 0),
                             static_cast<double>(c.static_shapes),
                             taps_skipped};
}

// Starting points of depthwise convolutions (one input channel per group): the fastest Halide
// configs of the dataset's 218 depthwise workload-device pairs (AVX-512, 1 and 2 threads; faster
// than oneDNN's best in 153) were mostly plain-layout strips along x (layout nchw 139, one channel
// per block 87, tile_x 8 or 16 in 120), accumulated per tile (155), padded per strip (107),
// parallel over channels (108), with full tiles shifted inwards (140). So: those strips, 16 and 8
// pixels wide (narrower where the output is) and 1 and 4 rows high, and two blocked tiles (below).
// Never a tile wider than the output: some such tiles write outside it (read_conv_knobs rejects the
// family found), and they only waste lanes.
std::vector<nlohmann::json> depthwise_seeds(const ConvShape& s, int vw) {
  std::vector<nlohmann::json> out;
  const char* pad = s.padded() ? "row" : "inline";
  const char* skip = s.padded() ? "rows" : "none";
  auto seed = [&](const char* layout, int ob, int tx, int ty, const char* parallel, int strip) {
    out.push_back({{"layout", layout},
                   {"oc_block", ob},
                   {"vector_width", vw},
                   {"tile_x", tx},
                   {"tile_y", ty},
                   {"tail", "shift_inwards"},
                   {"compute_at", "tile"},
                   {"rc_block", 0},
                   {"reduce_order", "c_k"},
                   {"pad", pad},
                   {"unroll", 1},
                   {"parallel", parallel},
                   {"strip", strip},
                   {"pad_tasks", 0},
                   {"static_shapes", 1},
                   {"skip_pad", skip}});
  };
  // Full tiles only (shifted inwards): the two widest of 16, 8, 7 and 4 pixels that fit the output.
  std::vector<int> widths;
  for (int tx : {16, 8, 7, 4})
    if (tx <= s.OW && widths.size() < 2) widths.push_back(tx);
  for (int tx : widths)
    for (int ty : {1, 4})
      if (ty <= s.OH) seed("nchw", 1, tx, ty, "oc", 0);
  // Blocked: one vector of channels per tile row, and for small outputs with many channels (where a
  // padded copy per strip costs more than bounds tests) two vectors of channels over 4x4 pixels, a
  // channel block's whole output at a time, reading the input unpadded.
  if (s.OW >= 4) {
    seed("nchwc", vw, 4, 1, "rows", 1);
    if (s.OH >= 4) {
      out.push_back(out.back());
      nlohmann::json& k = out.back();
      k["oc_block"] = 2 * vw;
      k["tile_y"] = 4;
      k["compute_at"] = "row";
      k["pad"] = "inline";
      k["parallel"] = "oc";
      k["strip"] = 0;
    }
  }
  return out;
}

// Hand-picked starting points of dense convolutions: blocked (NCHWc) register tiles of 4 to 8
// vectors, accumulated per tile or per row strip with a channel split that keeps a weight block in
// L1. Deep outputs (7x7 to 28x28) also get one weight block swept over a strip of 7 rows or of the
// whole output, with the padded copy made at root in 8 tasks (one task per channel costs more than
// the copy there). All are compiled for static shapes and skip the window's taps in the padding:
// rows and columns up to 28x28 outputs (where they are 5-18% of the taps), rows alone above (where
// the column tests of many tiles per row cost more than they save).
// Other grouped convolutions get none.
std::vector<nlohmann::json> conv2d_seeds(const ir::Workload& w, int vw) {
  std::vector<nlohmann::json> out;
  const ConvShape s = conv_shape(w);
  if (s.groups != 1 && s.Cg == 1 && s.O == s.groups) return depthwise_seeds(s, vw);
  if (s.groups != 1) return out;
  struct Tile {
    int ob, tx;
    const char* at;
    int rc;
    int strip = 1;  // tile rows per strip (0: the whole height)
  };
  std::vector<Tile> tiles = {{2 * vw, 8, "tile", 0}, {4 * vw, 4, "tile", 0}, {2 * vw, 7, "tile", 0},
                             {2 * vw, 8, "row", 32}, {2 * vw, 8, "row", 64},  {4 * vw, 4, "row", 64},
                             {2 * vw, 7, "row", 64}, {4 * vw, 7, "row", 32}};
  if (s.OH <= 28)
    for (int strip : {7, 0}) {
      if (strip == 7 && s.OH <= 7) continue;  // 7 of 7 rows: the same as 0
      for (Tile t : std::vector<Tile>{{2 * vw, 7, "row", 16}, {2 * vw, 7, "row", 32}, {4 * vw, 7, "row", 16}}) {
        t.strip = strip;
        tiles.push_back(t);
      }
    }
  for (const Tile& t : tiles) {
    if (t.tx == 7 && s.OW % 7 != 0) continue;
    std::vector<const char*> pads = {"inline"};
    if (s.padded() && t.strip == 1) pads = {"root", "row"};
    else if (s.padded()) pads = {"root"};
    for (const char* pad : pads)
      out.push_back({{"layout", "nchwc"},
                     {"oc_block", t.ob},
                     {"vector_width", vw},
                     {"tile_x", t.tx},
                     {"tile_y", 1},
                     {"tail", "guard"},
                     {"compute_at", t.at},
                     {"rc_block", t.rc},
                     {"reduce_order", "c_k"},
                     {"pad", pad},
                     {"unroll", 1},
                     {"parallel", "rows"},
                     {"strip", t.strip},
                     {"pad_tasks", std::string(pad) == "root" ? 8 : 0},
                     {"static_shapes", 1},
                     {"skip_pad", !s.padded()  ? "none"
                                  : s.OH <= 28 ? "all"
                                               : "rows"}});
  }
  return out;
}

}  // namespace

const OpTemplate& conv2d_template() {
  static const OpTemplate t{conv2d_space, conv2d_default, conv2d_validate, conv2d_build, conv2d_seeds, conv2d_features};
  return t;
}

}  // namespace tensorperf::kernels::halide
