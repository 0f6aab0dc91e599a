// Epilogue ops and activations as Halide expressions, shared by anchor templates and elementwise ops.
#include <cmath>

#include "kernels/halide/halide_template.h"

namespace tensorperf::kernels::halide {
namespace {

using Halide::Expr;

// erf(x) by Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7): Halide 14 has no erf.
Expr erf_approx(Expr x) {
  Expr s = Halide::select(x < 0, -1.0f, 1.0f);
  Expr a = Halide::abs(x);
  Expr t = 1.0f / (1.0f + 0.3275911f * a);
  Expr poly = t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
  return s * (1.0f - poly * Halide::exp(-a * a));
}

}  // namespace

Expr activation(const std::string& op, Expr v) {
  if (op == "relu") return Halide::max(v, 0.0f);
  if (op == "relu6") return Halide::clamp(v, 0.0f, 6.0f);
  if (op == "sigmoid") return 1.0f / (1.0f + Halide::exp(-v));
  if (op == "tanh") return Halide::tanh(v);
  if (op == "gelu") return 0.5f * v * (1.0f + erf_approx(v * static_cast<float>(M_SQRT1_2)));
  throw std::logic_error("unknown activation '" + op + "'");
}

Expr apply_epilogue(const ir::Workload& w, Expr value, const std::vector<Expr>& coords,
                    const std::vector<Halide::ImageParam>& params) {
  size_t next = w.inputs.size();
  for (const std::string& op : w.epilogue) {
    if (op == "bias") {
      // conv2d: per output channel (NCHW dim 1, Halide dim rank-2); others: the last dim (Halide dim 0).
      Expr channel = w.op == ir::OpKind::kConv2d ? coords[coords.size() - 2] : coords[0];
      value = value + params[next++](channel);
    } else if (op == "add") {
      value = value + params[next++](coords);
    } else if (op == "mul") {
      value = value * params[next++](coords);
    } else {
      value = activation(op, value);
    }
  }
  return value;
}

}  // namespace tensorperf::kernels::halide
