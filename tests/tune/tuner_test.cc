// Every tuner on a synthetic space with a known best: valid, never repeating, and (all but grid,
// whose order is declared, not learned) finding the best in fewer trials than random search.
#include "tune/tuner.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "synthetic.h"
#include "features/workload_features.h"

namespace tensorperf::tune {
namespace {

using testing::kBest;
using testing::synthetic_cost;
using testing::synthetic_space;
using testing::synthetic_valid;
using testing::trials_to_best;

constexpr int kBatch = 16;
constexpr int kBudget = 800;

int median_trials(const std::string& name, int seeds) {
  const SearchSpace space = synthetic_space();
  std::vector<int> trials;
  for (int seed = 0; seed < seeds; ++seed) {
    TunerContext ctx;
    ctx.space = &space;
    ctx.seed = static_cast<uint64_t>(seed);
    auto tuner = make_tuner(name, ctx);
    EXPECT_TRUE(tuner.ok()) << tuner.status().message();
    trials.push_back(trials_to_best(**tuner, kBatch, kBudget));
  }
  std::sort(trials.begin(), trials.end());
  return trials[trials.size() / 2];
}

TEST(Tuners, RegistryNamesEachTunerOnceAndRejectsUnknownNames) {
  std::vector<std::string> names;
  for (const TunerEntry& e : tuners()) names.emplace_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"xgb", "ga", "random", "grid"}));
  const SearchSpace space = synthetic_space();
  TunerContext ctx;
  ctx.space = &space;
  auto bad = make_tuner("anneal", ctx);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kNotFound);
  EXPECT_NE(bad.status().message().find("xgb, ga, random, grid"), std::string::npos);
}

TEST(Tuners, ModelGuidedAndGeneticSearchFindTheBestFasterThanRandom) {
  const int random = median_trials("random", 3);
  const int xgb = median_trials("xgb", 3);
  const int ga = median_trials("ga", 3);
  EXPECT_LT(xgb, random) << "xgb " << xgb << " vs random " << random;
  EXPECT_LT(ga, random) << "ga " << ga << " vs random " << random;
  EXPECT_LE(xgb, kBudget) << "xgb never found the best in " << kBudget << " trials";
}

TEST(Tuners, EveryTunerProposesOnlyValidNewPoints) {
  const SearchSpace space = synthetic_space();
  for (const TunerEntry& e : tuners()) {
    TunerContext ctx;
    ctx.space = &space;
    auto tuner = e.make(ctx);
    bool clean = false;
    trials_to_best(*tuner, kBatch, 200, &clean);
    EXPECT_TRUE(clean) << e.name;
  }
}

TEST(Tuners, PointsReportedBeforehandAreNeverProposed) {
  const SearchSpace space = synthetic_space();
  std::mt19937_64 rng(7);
  std::vector<TrialResult> known;
  PointSet known_set;
  while (known.size() < 300) {
    auto p = space.random_valid_point(rng);
    if (p && known_set.insert(*p).second) known.push_back({*p, synthetic_cost(*p)});
  }
  for (const TunerEntry& e : tuners()) {
    TunerContext ctx;
    ctx.space = &space;
    auto tuner = e.make(ctx);
    tuner->update(known);
    for (int round = 0; round < 10; ++round)
      for (const Point& p : tuner->next_batch(kBatch)) EXPECT_FALSE(known_set.count(p)) << e.name;
  }
}

TEST(Tuners, GridWalksEveryValidPointInDeclaredOrderOnce) {
  const SearchSpace space = synthetic_space();
  TunerContext ctx;
  ctx.space = &space;
  auto grid = make_tuner("grid", ctx);
  ASSERT_TRUE(grid.ok());
  std::vector<Point> all;
  for (std::vector<Point> b; !(b = (*grid)->next_batch(100)).empty();) all.insert(all.end(), b.begin(), b.end());
  size_t valid = 0;
  for (uint64_t i = 0; i < static_cast<uint64_t>(space.size()); ++i) valid += synthetic_valid(space.at(i));
  ASSERT_EQ(all.size(), valid);
  for (size_t i = 1; i < all.size(); ++i) EXPECT_LT(space.index(all[i - 1]), space.index(all[i]));
}

TEST(Tuners, GeneticChildrenAreValidAndNewAcrossGenerations) {
  const SearchSpace space = synthetic_space();
  TunerContext ctx;
  ctx.space = &space;
  ctx.seed = 3;
  auto ga = make_tuner("ga", ctx);
  ASSERT_TRUE(ga.ok());
  PointSet seen;
  for (int generation = 0; generation < 12; ++generation) {
    std::vector<Point> batch = (*ga)->next_batch(32);
    ASSERT_FALSE(batch.empty());
    std::vector<TrialResult> results;
    for (const Point& p : batch) {
      EXPECT_TRUE(synthetic_valid(p));
      EXPECT_TRUE(seen.insert(p).second);
      results.push_back({p, synthetic_cost(p)});
    }
    (*ga)->update(results);
  }
}

TEST(Tuners, FailedPointsRankWorstForTheModel) {
  // Every point with k0 == 3 fails: a model-guided tuner that learned that stops proposing them.
  const SearchSpace space = synthetic_space();
  TunerContext ctx;
  ctx.space = &space;
  auto xgb = make_tuner("xgb", ctx);
  ASSERT_TRUE(xgb.ok());
  int late_failures = 0, late = 0;
  for (int round = 0; round < 12; ++round) {
    std::vector<TrialResult> results;
    for (const Point& p : (*xgb)->next_batch(kBatch)) {
      bool fails = p[0] == 3;
      results.push_back({p, fails ? std::numeric_limits<double>::infinity() : synthetic_cost(p)});
      if (round >= 8) {
        ++late;
        late_failures += fails;
      }
    }
    (*xgb)->update(results);
  }
  // Random proposals would fail 1 in 6; the model's picks avoid k0 == 3 but for its random share.
  EXPECT_LT(late_failures * 12, late) << late_failures << " of " << late;
}

TEST(Tuners, TransferFromARelatedTaskFindsTheBestSooner) {
  // The related task: the same cost on another "device" (every cost doubled), 400 measurements.
  const SearchSpace space = synthetic_space();
  std::vector<float> task(features::task_feature_width(), 0.0f);
  TransferGroup related;
  std::mt19937_64 rng(11);
  PointSet taken;
  while (related.costs.size() < 400) {
    auto p = space.random_valid_point(rng);
    if (!p || !taken.insert(*p).second) continue;
    std::vector<float> row(task);
    row[task.size() - 2] = 1;  // another thread count
    row.resize(task.size() + space.feature_width());
    space.features(*p, row.data() + task.size());
    related.rows.insert(related.rows.end(), row.begin(), row.end());
    related.costs.push_back(2 * synthetic_cost(*p));
  }
  std::vector<int> cold, warm;
  for (uint64_t seed = 0; seed < 3; ++seed) {
    TunerContext ctx;
    ctx.space = &space;
    ctx.seed = seed;
    ctx.task_features = task;
    auto c = make_tuner("xgb", ctx);
    cold.push_back(trials_to_best(**c, kBatch, kBudget));
    ctx.transfer = {related};
    auto w = make_tuner("xgb", ctx);
    warm.push_back(trials_to_best(**w, kBatch, kBudget));
  }
  std::sort(cold.begin(), cold.end());
  std::sort(warm.begin(), warm.end());
  EXPECT_LT(warm[1], cold[1]) << "with transfer " << warm[1] << " vs cold " << cold[1];
}

}  // namespace
}  // namespace tensorperf::tune
