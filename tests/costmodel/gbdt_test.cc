#include "costmodel/gbdt.h"

#include <dirent.h>

#include <algorithm>
#include <cmath>
#include <random>

#include <gtest/gtest.h>
#include <xgboost/c_api.h>

namespace tensorperf::costmodel {
namespace {

// y = 3 x0 - 2 x1 + x0 x2 over uniform inputs in [0, 1).
Matrix make_inputs(size_t rows, uint64_t seed, std::vector<float>* y) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0, 1);
  Matrix x;
  x.cols = 3;
  for (size_t r = 0; r < rows; ++r) {
    float a = u(rng), b = u(rng), c = u(rng);
    x.values.insert(x.values.end(), {a, b, c});
    if (y) y->push_back(3 * a - 2 * b + a * c);
  }
  return x;
}

int threads_of_this_process() {
  int n = 0;
  if (DIR* d = ::opendir("/proc/self/task")) {
    while (dirent* e = ::readdir(d)) n += e->d_name[0] != '.';
    ::closedir(d);
  }
  return n;
}

TEST(Gbdt, RegressionRecoversAKnownFunction) {
  std::vector<float> y, y_test;
  Matrix x = make_inputs(2000, 1, &y), test = make_inputs(200, 2, &y_test);
  GbdtOptions o;
  o.objective = "reg:squarederror";
  o.rounds = 200;
  auto model = Gbdt::train(x, y, {}, {}, o);
  ASSERT_TRUE(model.ok()) << model.status().message();
  auto p = model->predict(test);
  ASSERT_TRUE(p.ok());
  double se = 0;
  for (size_t i = 0; i < y_test.size(); ++i) se += std::pow((*p)[i] - y_test[i], 2);
  EXPECT_LT(std::sqrt(se / y_test.size()), 0.1);  // y spans about [-2, 4]
}

// The leaf-size and L2 options reach XGBoost: leaves of at least as many rows as the training set
// has cannot split, and a huge L2 penalty shrinks every leaf to almost nothing.
TEST(Gbdt, LeafSizeAndPenaltyShrinkTheTrees) {
  std::vector<float> y, y_test;
  Matrix x = make_inputs(500, 11, &y), test = make_inputs(100, 12, &y_test);
  auto spread = [&](const GbdtOptions& o) {
    auto model = Gbdt::train(x, y, {}, {}, o);
    EXPECT_TRUE(model.ok()) << model.status().message();
    auto p = model->predict(test);
    EXPECT_TRUE(p.ok());
    auto [lo, hi] = std::minmax_element(p->begin(), p->end());
    return *hi - *lo;
  };
  GbdtOptions o;
  o.objective = "reg:squarederror";
  o.rounds = 50;
  const float plain = spread(o);
  EXPECT_GT(plain, 3.0f);  // y spans about [-2, 4]
  GbdtOptions whole = o;
  whole.min_child_weight = 1000;
  EXPECT_LT(spread(whole), 1e-6f);
  GbdtOptions shrunk = o;
  shrunk.lambda = 1e6;
  EXPECT_LT(spread(shrunk), 0.01f * plain);
}

TEST(Gbdt, RankingOrdersRowsWithinGroupsAndStartsNoThread) {
  // Two groups of the same relevance function; the model must order unseen rows by it.
  std::vector<float> y;
  Matrix x = make_inputs(600, 3, &y);
  std::vector<unsigned> groups = {300, 300};
  const int threads_before = threads_of_this_process();
  auto model = Gbdt::train(x, y, groups, {}, GbdtOptions{});
  ASSERT_TRUE(model.ok()) << model.status().message();
  std::vector<float> y_test;
  Matrix test = make_inputs(100, 4, &y_test);
  auto p = model->predict(test);
  ASSERT_TRUE(p.ok());
  // Tuners fork measurement workers after training: one thread means nothing to break in a fork.
  EXPECT_EQ(threads_of_this_process(), threads_before);
  int agree = 0, pairs = 0;
  for (size_t i = 0; i < y_test.size(); ++i)
    for (size_t j = i + 1; j < y_test.size(); ++j) {
      if (std::abs(y_test[i] - y_test[j]) < 0.2) continue;
      ++pairs;
      agree += ((*p)[i] > (*p)[j]) == (y_test[i] > y_test[j]);
    }
  EXPECT_GT(static_cast<double>(agree) / pairs, 0.9);
}

TEST(Gbdt, SaveAndLoadPredictIdentically) {
  std::vector<float> y;
  Matrix x = make_inputs(300, 5, &y);
  GbdtOptions o;
  o.objective = "reg:squarederror";
  auto model = Gbdt::train(x, y, {}, {}, o);
  ASSERT_TRUE(model.ok());
  auto bytes = model->save();
  ASSERT_TRUE(bytes.ok());
  auto loaded = Gbdt::load(*bytes);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->features(), 3u);
  EXPECT_EQ(*model->predict(x), *loaded->predict(x));
  auto garbage = Gbdt::load("not a model");
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.status().code(), StatusCode::kCorruption);
}

// A copy (the saved model loaded again) boosts on without touching the original; a prediction from
// the first rounds of the copy is the original's.
TEST(Gbdt, ACopyBoostsOnAloneAndPredictsFromItsFirstRounds) {
  std::vector<float> y;
  Matrix x = make_inputs(300, 9, &y);
  GbdtOptions o;
  o.objective = "reg:squarederror";
  o.rounds = 20;
  auto model = Gbdt::train(x, y, {}, {}, o);
  ASSERT_TRUE(model.ok());
  EXPECT_EQ(*model->rounds(), 20);
  const std::vector<float> before = *model->predict(x);
  auto bytes = model->save();
  ASSERT_TRUE(bytes.ok());
  auto copy = Gbdt::load(*bytes);
  ASSERT_TRUE(copy.ok()) << copy.status().message();
  std::vector<float> shifted = y;
  for (float& v : shifted) v += 1.0f;
  o.rounds = 15;
  ASSERT_TRUE(copy->boost_more(x, shifted, o).ok());
  EXPECT_EQ(*copy->rounds(), 35);
  EXPECT_EQ(*model->rounds(), 20);
  EXPECT_EQ(*model->predict(x), before) << "the original is unchanged";
  EXPECT_EQ(*copy->predict(x, 20), before);
  EXPECT_EQ(*copy->predict(x, 0), *copy->predict(x, 35)) << "0: every round";
  const std::vector<float> after = *copy->predict(x);
  double moved = 0;
  for (size_t i = 0; i < after.size(); ++i) moved += (after[i] - before[i]) / static_cast<double>(after.size());
  EXPECT_GT(moved, 0.5) << "the rounds after 20 learned the shift";
}

// Gbdt predicts in place from its dense rows; XGBoost's DMatrix path, run here on the same saved
// model, must give the same values, missing (NaN) features included.
TEST(Gbdt, InPlacePredictionEqualsTheDMatrixPath) {
  std::vector<float> y;
  Matrix x = make_inputs(500, 7, &y);
  GbdtOptions o;
  o.objective = "reg:squarederror";
  o.rounds = 50;
  auto model = Gbdt::train(x, y, {}, {}, o);
  ASSERT_TRUE(model.ok()) << model.status().message();
  Matrix test = make_inputs(64, 8, nullptr);
  for (size_t r = 0; r < test.rows(); r += 3) test.values[r * test.cols + r % test.cols] = std::nanf("");
  auto got = model->predict(test);
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_EQ(got->size(), test.rows());

  auto bytes = model->save();
  ASSERT_TRUE(bytes.ok());
  BoosterHandle b = nullptr;
  ASSERT_EQ(XGBoosterCreate(nullptr, 0, &b), 0);
  ASSERT_EQ(XGBoosterLoadModelFromBuffer(b, bytes->data(), bytes->size()), 0);
  DMatrixHandle d = nullptr;
  ASSERT_EQ(XGDMatrixCreateFromMat(test.values.data(), test.rows(), test.cols, std::nanf(""), &d), 0);
  bst_ulong n = 0;
  const float* want = nullptr;
  ASSERT_EQ(XGBoosterPredict(b, d, 0, 0, 0, &n, &want), 0);
  ASSERT_EQ(n, test.rows());
  for (size_t i = 0; i < n; ++i) EXPECT_FLOAT_EQ((*got)[i], want[i]) << i;
  XGDMatrixFree(d);
  XGBoosterFree(b);
}

TEST(Gbdt, InconsistentInputsAreErrors) {
  std::vector<float> y;
  Matrix x = make_inputs(10, 6, &y);
  std::vector<float> short_labels(y.begin(), y.begin() + 5);
  EXPECT_EQ(Gbdt::train(x, short_labels, {}, {}, {}).status().code(), StatusCode::kInvalidArgument);
  std::vector<unsigned> groups = {4, 4};
  EXPECT_EQ(Gbdt::train(x, y, groups, {}, {}).status().code(), StatusCode::kInvalidArgument);
  auto model = Gbdt::train(x, y, {}, {}, {});
  ASSERT_TRUE(model.ok());
  Matrix wide;
  wide.cols = 4;
  wide.values.assign(8, 0.0f);
  EXPECT_EQ(model->predict(wide).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tensorperf::costmodel
