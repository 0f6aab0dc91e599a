#include "costmodel/moment_discrepancy.h"

namespace tensorperf::costmodel {

torch::Tensor central_moment_discrepancy(const torch::Tensor& a, const torch::Tensor& b, int moments) {
  const torch::Tensor mean_a = a.mean(0), mean_b = b.mean(0);
  // The norm's gradient at 0 is undefined: a tiny epsilon keeps identical sets differentiable.
  auto norm = [](const torch::Tensor& d) { return (d.pow(2).sum() + 1e-12).sqrt(); };
  torch::Tensor total = norm(mean_a - mean_b);
  const torch::Tensor ca = a - mean_a, cb = b - mean_b;
  for (int k = 2; k <= moments; ++k) total = total + norm(ca.pow(k).mean(0) - cb.pow(k).mean(0));
  return total;
}

}  // namespace tensorperf::costmodel
