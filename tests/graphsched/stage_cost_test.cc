// The predicted stage cost: the contention model's fit and how a stage's cost is composed from its
// operators' times at one and at all the threads.
#include "graphsched/stage_cost.h"

#include <gtest/gtest.h>

#include <map>

namespace tensorperf::graphsched {
namespace {

TEST(FitContention, RecoversTheTermsTheSamplesWereMadeWith) {
  std::vector<ContentionSample> samples;
  for (int i = 0; i < 12; ++i) {
    ContentionSample s;
    s.longest_s = 1e-3 * (1 + i % 5);
    s.serial_s = 1e-3 * (i % 3) * 0.7;
    s.measured_s = 1.2 * s.longest_s + 0.4 * s.serial_s;
    samples.push_back(s);
  }
  const Contention c = fit_contention(samples);
  EXPECT_NEAR(c.scale, 1.2, 1e-9);
  EXPECT_NEAR(c.shared, 0.4, 1e-9);
}

TEST(FitContention, FallsBackToOneFactorWhenTheSerialTermCannotBeFitted) {
  EXPECT_EQ(fit_contention({}).scale, 1.0);
  EXPECT_EQ(fit_contention({}).shared, 0.0);
  // No operator has a serial part: the longest group scaled, by the measured ratio.
  std::vector<ContentionSample> samples = {{1e-3, 0, 1.5e-3}, {2e-3, 0, 3e-3}};
  Contention c = fit_contention(samples);
  EXPECT_NEAR(c.scale, 1.5, 1e-9);
  EXPECT_EQ(c.shared, 0.0);
  // A fit that wants a negative share of the serial time keeps the factor alone.
  samples = {{1e-3, 1e-3, 1.0e-3}, {1e-3, 0, 1.5e-3}, {2e-3, 2e-3, 2.2e-3}};
  c = fit_contention(samples);
  EXPECT_EQ(c.shared, 0.0);
  EXPECT_GT(c.scale, 1.0);
}

TEST(ComposedStageCost, ChargesConcurrentGroupsForWhatTheirOperatorsDoNotGainFromThreads) {
  // Operator 0 scales perfectly from one thread to two, operator 1 not at all, operator 2 halfway.
  const std::map<std::pair<int, int>, double> t = {{{0, 1}, 4e-3}, {{0, 2}, 2e-3}, {{1, 1}, 3e-3},
                                                   {{1, 2}, 3e-3}, {{2, 1}, 2e-3}, {{2, 2}, 1.5e-3}};
  int asked = 0;
  auto op_cost = [&](int op, int threads) -> Result<double> {
    ++asked;
    auto it = t.find({op, threads});
    if (it == t.end()) return Status::NotFound("no time");
    return it->second;
  };
  ComposedStageCost cost(op_cost, Contention{1.1, 0.5}, 1e-5, 2);
  // Serial parts (Amdahl from t(1) and t(2): 2 t(2) - t(1)): 0, 3 ms and 1 ms.
  Result<ContentionSample> s = cost.terms(StageChoice{{{0}, {1, 2}}, {1, 1}, false});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_NEAR(s->longest_s, 5e-3, 1e-12);
  EXPECT_NEAR(s->serial_s, 4e-3, 1e-12);
  Result<double> c = cost(StageChoice{{{0}, {1, 2}}, {1, 1}, false});
  ASSERT_TRUE(c.ok());
  EXPECT_NEAR(*c, 1.1 * 5e-3 + 0.5 * 4e-3 + 1e-5, 1e-12);
  // One group: its operators' times at its threads, no contention.
  c = cost(StageChoice{{{0, 1}}, {2}, false});
  ASSERT_TRUE(c.ok());
  EXPECT_NEAR(*c, 5e-3 + 1e-5, 1e-12);
  // Two groups of operators that scale perfectly cost only the factor on the longest.
  c = cost(StageChoice{{{0}, {0}}, {1, 1}, false});
  ASSERT_TRUE(c.ok());
  EXPECT_NEAR(*c, 1.1 * 4e-3 + 1e-5, 1e-12);
  // Operator times are asked once per operator and thread count.
  EXPECT_EQ(asked, 6);
  // Merged stages need their own cost.
  EXPECT_FALSE(cost(StageChoice{{{0, 1}}, {2}, true}).ok());
}

}  // namespace
}  // namespace tensorperf::graphsched
