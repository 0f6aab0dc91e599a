// Cost-model metrics against values computed by hand.
#include "costmodel/metrics.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace tensorperf::costmodel {
namespace {

TEST(Metrics, ErrorsAndRankingsByHand) {
  // Group a: measured 1, 2, 4; predicted 1, 2, 3 (the last 25% low). Group b: measured 10, 5,
  // predicted 6, 9: ordered wrong, and the predicted best (6 -> measured 10) is half as fast.
  const std::vector<double> predicted = {1, 2, 3, 6, 9};
  const std::vector<double> measured = {1, 2, 4, 10, 5};
  const std::vector<std::string> group = {"a", "a", "a", "b", "b"};
  Metrics m = evaluate(predicted, measured, group);
  EXPECT_EQ(m.samples, 5u);
  EXPECT_NEAR(m.mape, (0 + 0 + 0.25 + 0.4 + 0.8) / 5, 1e-12);
  EXPECT_NEAR(m.within_10, 2.0 / 5, 1e-12);
  EXPECT_NEAR(m.within_20, 2.0 / 5, 1e-12);
  const double l = std::log(0.75), k = std::log(0.6), j = std::log(1.8);
  EXPECT_NEAR(m.rmse_log, std::sqrt((l * l + k * k + j * j) / 5), 1e-12);
  EXPECT_EQ(m.groups, 2u);
  EXPECT_NEAR(m.pairwise, 3.0 / 4, 1e-12);       // a: 3 of 3 pairs right; b: its one pair wrong
  EXPECT_NEAR(m.top1, (1.0 + 0.5) / 2, 1e-12);   // b's predicted best runs at half the best speed
  EXPECT_NEAR(m.top5, 1.0, 1e-12);               // the top 5 hold each group's best
}

TEST(Metrics, SingletonGroupsDoNotRank) {
  Metrics m = evaluate(std::vector<double>{2}, std::vector<double>{1}, std::vector<std::string>{"x"});
  EXPECT_EQ(m.groups, 0u);
  EXPECT_EQ(m.pairwise, 0);
  EXPECT_NEAR(m.mape, 1.0, 1e-12);
  EXPECT_EQ(evaluate({}, {}, {}).samples, 0u);
}

}  // namespace
}  // namespace tensorperf::costmodel
