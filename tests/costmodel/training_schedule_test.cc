// The neural models' training schedule: the rate's cosine and settled tail, the weight average, and
// that training on the schedule leaves the averaged weights in the module.
#include "costmodel/training_schedule.h"

#include <cmath>
#include <numbers>

#include <gtest/gtest.h>

namespace tensorperf::costmodel {
namespace {

TEST(TrainingSchedule, RateFallsAlongACosineThenSettlesForTheAveragedEpochs) {
  // 100 epochs: 75 on the cosine, the last 25 settled at a tenth and averaged.
  EXPECT_EQ(first_averaged_epoch(100), 75);
  EXPECT_DOUBLE_EQ(scheduled_rate(1.0, 0, 100), 1.0);
  EXPECT_NEAR(scheduled_rate(1.0, 37, 100), 0.1 + 0.9 * 0.5 * (1 + std::cos(std::numbers::pi * 37 / 75.0)), 1e-12);
  for (int e = 1; e < 75; ++e) EXPECT_LT(scheduled_rate(1.0, e, 100), scheduled_rate(1.0, e - 1, 100)) << e;
  for (int e = 75; e < 100; ++e) EXPECT_DOUBLE_EQ(scheduled_rate(2.0, e, 100), 0.2) << e;
  // Short runs still average their last epoch; a single epoch runs at the full rate.
  EXPECT_EQ(first_averaged_epoch(2), 1);
  EXPECT_EQ(first_averaged_epoch(1), 0);
  EXPECT_DOUBLE_EQ(scheduled_rate(0.5, 0, 1), 0.5);
}

TEST(TrainingSchedule, WeightAverageIsTheMeanOfTheSnapshots) {
  torch::nn::Linear layer(2, 1);
  WeightAverage average;
  average.assign_to(*layer);  // nothing added: the weights stay
  {
    torch::NoGradGuard no_grad;
    layer->weight.fill_(3.0);
  }
  EXPECT_EQ(layer->weight.sum().item<float>(), 6.0f);
  for (float v : {1.0f, 2.0f, 6.0f}) {
    {
      torch::NoGradGuard no_grad;
      layer->weight.fill_(v);
      layer->bias.fill_(-v);
    }
    average.add(*layer);
  }
  EXPECT_EQ(average.count(), 3);
  average.assign_to(*layer);
  EXPECT_NEAR(layer->weight[0][0].item<float>(), 3.0f, 1e-6);
  EXPECT_NEAR(layer->weight[0][1].item<float>(), 3.0f, 1e-6);
  EXPECT_NEAR(layer->bias[0].item<float>(), -3.0f, 1e-6);
}

TEST(TrainingSchedule, TrainingSetsEachEpochsRateAndKeepsTheAverage) {
  // A parameter that each epoch moves to the epoch's number: the module ends at the mean of the
  // averaged epochs' values, and the optimiser saw each epoch's scheduled rate.
  torch::nn::Linear layer(1, 1);
  torch::optim::Adam adam(layer->parameters(), torch::optim::AdamOptions(0.01));
  std::vector<double> rates;
  train_on_schedule(*layer, adam, 0.01, 8, [&](int e) {
    rates.push_back(static_cast<torch::optim::AdamOptions&>(adam.param_groups()[0].options()).lr());
    torch::NoGradGuard no_grad;
    layer->weight.fill_(static_cast<float>(e));
  });
  ASSERT_EQ(rates.size(), 8u);
  for (int e = 0; e < 8; ++e) EXPECT_DOUBLE_EQ(rates[static_cast<size_t>(e)], scheduled_rate(0.01, e, 8)) << e;
  // 8 epochs: the last 2 (6 and 7) are averaged.
  EXPECT_NEAR(layer->weight[0][0].item<float>(), 6.5f, 1e-6);
}

}  // namespace
}  // namespace tensorperf::costmodel
