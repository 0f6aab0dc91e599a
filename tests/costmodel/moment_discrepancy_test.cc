// The central moment discrepancy against hand-computed values.
#include "costmodel/moment_discrepancy.h"

#include <cmath>

#include <gtest/gtest.h>

namespace tensorperf::costmodel {
namespace {

TEST(MomentDiscrepancy, IsZeroForOneSetAndMeasuresShiftsAndSpreads) {
  torch::manual_seed(3);
  const torch::Tensor a = torch::randn({200, 4});
  EXPECT_NEAR(central_moment_discrepancy(a, a).item<double>(), 0.0, 1e-5);
  // A shift by 0.5 in each of 4 dimensions moves only the mean: sqrt(4 x 0.25) = 1.
  EXPECT_NEAR(central_moment_discrepancy(a, a + 0.5).item<double>(), 1.0, 1e-4);
  // Two points {-1, 1} against {-2, 2} in one dimension: means equal; central moments of order 2
  // are 1 and 4, order 3 both 0, order 4 1 and 16: 3 + 15 with moments up to 4.
  const torch::Tensor x = torch::tensor({-1.0f, 1.0f}).unsqueeze(1), y = torch::tensor({-2.0f, 2.0f}).unsqueeze(1);
  EXPECT_NEAR(central_moment_discrepancy(x, y, 4).item<double>(), 18.0, 1e-4);
  EXPECT_NEAR(central_moment_discrepancy(x, y, 1).item<double>(), 0.0, 1e-5);
}

TEST(MomentDiscrepancy, GradientPullsTheSetsTogether) {
  torch::manual_seed(4);
  torch::Tensor b = (torch::randn({100, 3}) * 2 + 1).requires_grad_(true);
  const torch::Tensor a = torch::randn({100, 3});
  const double before = central_moment_discrepancy(a, b).item<double>();
  torch::optim::Adam adam({b}, torch::optim::AdamOptions(0.02));
  for (int i = 0; i < 300; ++i) {
    adam.zero_grad();
    torch::Tensor d = central_moment_discrepancy(a, b);
    d.backward();
    adam.step();
  }
  const double after = central_moment_discrepancy(a, b).item<double>();
  EXPECT_LT(after, 0.2 * before) << before << " -> " << after;
}

}  // namespace
}  // namespace tensorperf::costmodel
