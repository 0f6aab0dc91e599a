// Stage costs corrected by the whole model's profile: the fit of each operator's factor and of the
// concurrent stages' factor, and what a stage then costs.
#include "graphsched/in_model.h"

#include <gtest/gtest.h>

namespace tensorperf::graphsched {
namespace {

// Operator v alone: (v + 1) ms on one thread, 0.6x that on two.
Result<double> op_cost(int v, int threads) { return (v + 1) * 1e-3 * (threads == 2 ? 0.6 : 1.0); }

// A stage alone: its longest group's operators at the group's threads, plus 10%.
Result<double> alone(const StageChoice& c) {
  double longest = 0;
  for (size_t g = 0; g < c.groups.size(); ++g) {
    double sum = 0;
    for (int v : c.groups[g]) sum += *op_cost(v, c.threads[g]);
    longest = std::max(longest, sum);
  }
  return 1.1 * longest;
}

StageInModel single(int v, double factor) {
  StageInModel m;
  m.stage = StageChoice{{{v}}, {2}, false};
  m.model_s = *op_cost(v, 2) * factor;
  return m;
}

TEST(InModel, FitRecoversEachOperatorsFactorAndTheConcurrentOne) {
  const std::vector<double> factor = {2.0, 1.0, 0.5, 1.25, 20.0};
  std::vector<StageInModel> sequential;
  for (int v = 0; v < 5; ++v) sequential.push_back(single(v, factor[v]));
  // Two concurrent stages that ran 1.3x what their time alone and their operators' factors say, and a
  // one-group stage and a merged one that say nothing about concurrency.
  std::vector<StageInModel> found;
  const std::vector<StageChoice> concurrent = {StageChoice{{{0}, {1}}, {1, 1}, false},
                                               StageChoice{{{2, 3}, {4}}, {1, 1}, false}};
  for (const StageChoice& c : concurrent) {
    double weighted = 0, total = 0;
    for (size_t g = 0; g < c.groups.size(); ++g)
      for (int v : c.groups[g]) {
        const double f = std::min(factor[v], kMaxOpFactor);
        weighted += f * *op_cost(v, 1);
        total += *op_cost(v, 1);
      }
    found.push_back(StageInModel{c, *alone(c) * weighted / total * 1.3});
  }
  found.push_back(StageInModel{StageChoice{{{0, 1}}, {2}, false}, 1.0});
  found.push_back(StageInModel{StageChoice{{{2, 3}}, {2}, true}, 1.0});

  // A second profile of the first stage, 10% slower: the mean of the two is its time in the model.
  std::vector<StageInModel> later = {found[0]};
  later[0].model_s *= 1.1;
  const double first_model_s = found[0].model_s * 1.05;
  Result<InModelFactors> f = fit_in_model(5, 2, sequential, {found, later}, alone, op_cost);
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_EQ(f->op.size(), 5u);
  for (int v = 0; v < 4; ++v) EXPECT_NEAR(f->op[v], factor[v], 1e-9) << v;
  EXPECT_EQ(f->op[4], kMaxOpFactor) << "an outlier is clamped";
  const double predicted0 = found[0].model_s / 1.3, predicted1 = found[1].model_s / 1.3;
  EXPECT_NEAR(f->concurrent, (first_model_s + found[1].model_s) / (predicted0 + predicted1), 1e-9);
  EXPECT_EQ(f->concurrent_stages, 2);
  // A profiled stage costs its time in the model, whatever its time alone. Stage 0 took 2.2 ms alone
  // x 4/3 (its operators' factor) x 1.3 x 1.05 = 4.0 ms in the model, more than its operators' 1.2 +
  // 1.2 ms in the sequential profile: it lost. Stage 1 took 7.7 ms x 3.875 x 1.3 = 38.8 ms against
  // its operators' 0.9 + 3 + 60 ms: it gained.
  EXPECT_NEAR(*f->cost(concurrent[0], 1.0, op_cost), first_model_s, 1e-15);
  EXPECT_NEAR(*f->cost(concurrent[1], 1.0, op_cost), found[1].model_s, 1e-15);
  EXPECT_EQ(f->losing_stages, 1);

  // Another concurrent stage costs its time alone x its operators' time-weighted factor x the
  // concurrent factor; a one-group stage and a merged one without the concurrent factor.
  const StageChoice pair{{{0}, {3}}, {1, 1}, false};
  const double w = (2.0 * 1e-3 + 1.25 * 4e-3) / 5e-3;
  EXPECT_NEAR(*f->cost(pair, 1e-3, op_cost), 1e-3 * w * f->concurrent, 1e-15);
  const StageChoice chain{{{0, 3}}, {2}, false};
  EXPECT_NEAR(*f->cost(chain, 1e-3, op_cost), 1e-3 * w, 1e-15);
  const StageChoice merged{{{0, 3}}, {2}, true};
  EXPECT_NEAR(*f->cost(merged, 1e-3, op_cost), 1e-3 * w, 1e-15);
}

TEST(InModel, AConcurrentStageSlowerThanItsOperatorsInSequenceLost) {
  std::vector<StageInModel> sequential = {single(0, 1.0), single(1, 1.0), single(2, 1.0)};
  // Operators 0 and 1 take 0.6 + 1.2 ms in the sequential profile; side by side 2 ms: lost.
  std::vector<StageInModel> found = {StageInModel{StageChoice{{{0}, {1}}, {1, 1}, false}, 2e-3},
                                     StageInModel{StageChoice{{{2}}, {2}, false}, 1.8e-3}};
  Result<InModelFactors> f = fit_in_model(3, 2, sequential, {found}, alone, op_cost);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->concurrent_stages, 1);
  EXPECT_EQ(f->losing_stages, 1);
  found[0].model_s = 1.5e-3;  // gained
  f = fit_in_model(3, 2, sequential, {found}, alone, op_cost);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->losing_stages, 0);
}

TEST(InModel, WithoutProfilesEveryFactorIsOne) {
  Result<InModelFactors> f = fit_in_model(3, 2, {}, {}, alone, op_cost);
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(f->stages.empty());
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->op, std::vector<double>(3, 1.0));
  EXPECT_EQ(f->concurrent, 1.0);
  EXPECT_EQ(f->concurrent_stages, 0);
  const StageChoice pair{{{0}, {1}}, {1, 1}, false};
  EXPECT_DOUBLE_EQ(*f->cost(pair, 2e-3, op_cost), 2e-3);
}

TEST(InModel, AProfileOfAnotherGraphIsAnError) {
  Result<InModelFactors> f = fit_in_model(3, 2, {single(7, 1.0)}, {}, alone, op_cost);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("operator 7 of 3"), std::string::npos) << f.status().message();
  const StageInModel wide{StageChoice{{{0}, {5}}, {1, 1}, false}, 1e-3};
  f = fit_in_model(3, 2, {single(0, 1.0)}, {{wide}}, alone, op_cost);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("operator 5 of 3"), std::string::npos) << f.status().message();
}

}  // namespace
}  // namespace tensorperf::graphsched
