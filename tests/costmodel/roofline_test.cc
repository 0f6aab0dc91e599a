#include "costmodel/roofline.h"

#include <algorithm>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "costmodel/cost_model.h"
#include "costmodel/metrics.h"
#include "features/program_features.h"
#include "measure/device.h"

namespace tensorperf::costmodel {
namespace {

// A sample of a matrix product [m, k] x [k, n] on a device of `peak` GFLOP/s and `bandwidth` GB/s,
// its features written as features::workload_features writes them (log2 of 1 + the value).
Sample matmul(double m, double k, double n, double peak, double bandwidth) {
  Sample s;
  s.program.assign(features::pooled_feature_names().size(), 0.0f);
  s.device.assign(measure::device_feature_names().size(), 0.0f);
  auto put = [&](const std::string& name, double v) {
    s.program[program_column("workload." + name)] = static_cast<float>(std::log2(1 + v));
  };
  put("log2_flops", 2 * m * k * n);
  put("in0_dim2", m);
  put("in0_dim3", k);
  put("in1_dim2", k);
  put("in1_dim3", n);
  put("out_dim2", m);
  put("out_dim3", n);
  s.device[device_column("peak_gflops")] = static_cast<float>(peak);
  s.device[device_column("mem_bandwidth_gbs")] = static_cast<float>(bandwidth);
  s.workload = "matmul " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
  s.device_key = "d";
  s.provider = "halide";
  return s;
}

TEST(Roofline, FlopsAtPeakPlusBytesAtBandwidth) {
  // 2 x 256^3 flops at 100 GFLOP/s; three 256x256 float tensors at 10 GB/s; 1 us.
  const double want = 2.0 * 256 * 256 * 256 / 100e9 + 3 * 4.0 * 256 * 256 / 10e9 + 1e-6;
  EXPECT_NEAR(roofline_seconds(matmul(256, 256, 256, 100, 10)), want, 1e-3 * want);
  // Twice the peak: the flops' share halves.
  const double faster = 2.0 * 256 * 256 * 256 / 200e9 + 3 * 4.0 * 256 * 256 / 10e9 + 1e-6;
  EXPECT_NEAR(roofline_seconds(matmul(256, 256, 256, 200, 10)), faster, 1e-3 * faster);
  // No device peaks: counted as 1 GFLOP/s and 1 GB/s, not a division by zero.
  EXPECT_TRUE(std::isfinite(roofline_seconds(matmul(64, 64, 64, 0, 0))));
  EXPECT_GT(roofline_seconds(Sample{}), 0);
}

// Trained on products up to 2^27 flops whose latency is 1.6-3x their roofline, the model predicts
// one of 2^33 flops (60x the largest it saw) within 25%: its target is the distance from the roofline.
class RooflineTarget : public ::testing::TestWithParam<std::string> {};

TEST_P(RooflineTarget, ExtrapolatesToLargerWorkloads) {
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int> dim(4, 9), gap(0, 3);
  std::uniform_real_distribution<double> peak(50, 200);
  std::vector<Sample> train;
  for (int i = 0; i < 1500; ++i) {
    const double m = std::exp2(dim(rng)), k = std::exp2(dim(rng)), n = std::exp2(dim(rng));
    Sample s = matmul(m, k, n, peak(rng), 20);
    const int g = gap(rng);
    s.program[0] = static_cast<float>(g);  // a knob: how far from the roofline this config runs
    s.seconds = roofline_seconds(s) * (1.6 + 0.45 * g);
    train.push_back(std::move(s));
  }
  auto model = make_cost_model(GetParam());
  ASSERT_TRUE(model.ok() && (*model)->fit(train).ok());
  std::vector<Sample> big;
  for (int g = 0; g < 4; ++g) {
    Sample s = matmul(2048, 2048, 1024, 100, 20);
    s.program[0] = static_cast<float>(g);
    s.seconds = roofline_seconds(s) * (1.6 + 0.45 * g);
    big.push_back(std::move(s));
  }
  auto predicted = (*model)->predict(big);
  ASSERT_TRUE(predicted.ok()) << predicted.status().ToString();
  for (size_t i = 0; i < big.size(); ++i)
    EXPECT_NEAR((*predicted)[i] / big[i].seconds, 1.0, 0.25) << "gap " << i << ": " << (*predicted)[i] << " s, measured "
                                                            << big[i].seconds << " s";
}

INSTANTIATE_TEST_SUITE_P(Models, RooflineTarget, ::testing::Values("xgb", "mlp"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tensorperf::costmodel
