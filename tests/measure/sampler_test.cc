#include "measure/sampler.h"

#include <set>

#include <gtest/gtest.h>

namespace tensorperf::measure {
namespace {

kernels::ConfigSpace space() {
  return {{{"tile_x", {1, 2, 4, 8, 16, 32, 64}},
           {"tile_y", {1, 2, 3, 4, 5, 6, 7, 8}},
           {"order", {"xy", "yx"}},
           {"vectorize", {0, 4, 8, 16}}}};  // 448 points
}

std::set<std::string> distinct(const std::vector<kernels::Config>& cs) {
  std::set<std::string> s;
  for (const auto& c : cs) s.insert(c.knobs.dump());
  return s;
}

TEST(Sampler, RandomIsDistinctSeededAndExtendsWithN) {
  auto a = sample_configs(space(), "halide", SamplerKind::kRandom, 50, 3);
  auto b = sample_configs(space(), "halide", SamplerKind::kRandom, 50, 3);
  auto c = sample_configs(space(), "halide", SamplerKind::kRandom, 50, 4);
  auto longer = sample_configs(space(), "halide", SamplerKind::kRandom, 80, 3);
  ASSERT_EQ(a.size(), 50u);
  EXPECT_EQ(distinct(a).size(), 50u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].knobs, b[i].knobs);
    EXPECT_EQ(a[i].knobs, longer[i].knobs);
    EXPECT_EQ(a[i].provider, "halide");
    EXPECT_EQ(a[i].knobs.size(), 4u);
  }
  EXPECT_NE(distinct(a), distinct(c));
}

TEST(Sampler, AskingForMoreThanTheSpaceGivesTheWholeSpace) {
  for (SamplerKind k : {SamplerKind::kRandom, SamplerKind::kGrid}) {
    auto all = sample_configs(space(), "halide", k, 1000, 1);
    EXPECT_EQ(all.size(), 448u) << sampler_name(k);
    EXPECT_EQ(distinct(all).size(), 448u) << sampler_name(k);
  }
}

TEST(Sampler, GridIsDeterministicDistinctAndSpreadOverEveryKnob) {
  auto a = sample_configs(space(), "halide", SamplerKind::kGrid, 20, 1);
  auto b = sample_configs(space(), "halide", SamplerKind::kGrid, 20, 99);
  ASSERT_EQ(a.size(), 20u);
  EXPECT_EQ(distinct(a).size(), 20u);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].knobs, b[i].knobs);
  // The first point is the space's first; the walk reaches the most significant knob's later values.
  EXPECT_EQ(a[0].knobs["tile_x"], 1);
  EXPECT_EQ(a[0].knobs["vectorize"], 0);
  std::set<int> tile_x, vectorize;
  for (const auto& c : a)
    tile_x.insert(c.knobs["tile_x"].get<int>()), vectorize.insert(c.knobs["vectorize"].get<int>());
  EXPECT_EQ(tile_x.size(), 7u);
  EXPECT_GE(vectorize.size(), 2u);
}

TEST(Sampler, GridHandlesSpacesBeyondSixtyFourBits) {
  kernels::ConfigSpace huge;
  for (int k = 0; k < 30; ++k)
    huge.knobs.push_back({"k" + std::to_string(k), {0, 1, 2, 3, 4, 5, 6, 7}});  // 8^30 = 2^90
  auto g = sample_configs(huge, "halide", SamplerKind::kGrid, 16, 0);
  ASSERT_EQ(g.size(), 16u);
  EXPECT_EQ(distinct(g).size(), 16u);
  std::set<int> first;
  for (const auto& c : g) first.insert(c.knobs["k0"].get<int>());
  EXPECT_EQ(first.size(), 8u);  // 16 evenly spaced points: two per value of the top knob
  auto r = sample_configs(huge, "halide", SamplerKind::kRandom, 16, 0);
  EXPECT_EQ(distinct(r).size(), 16u);
}

TEST(Sampler, EmptyKnobsAndZeroN) {
  EXPECT_TRUE(sample_configs(space(), "halide", SamplerKind::kRandom, 0, 1).empty());
  kernels::ConfigSpace none;
  auto one = sample_configs(none, "onednn", SamplerKind::kGrid, 5, 1);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_TRUE(one[0].knobs.empty());
  kernels::ConfigSpace empty_knob = {{{"a", {}}}};
  EXPECT_TRUE(sample_configs(empty_knob, "halide", SamplerKind::kRandom, 5, 1).empty());
}

TEST(Sampler, ParsesNames) {
  EXPECT_EQ(*parse_sampler("random"), SamplerKind::kRandom);
  EXPECT_EQ(*parse_sampler("grid"), SamplerKind::kGrid);
  EXPECT_EQ(parse_sampler("ga").status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tensorperf::measure
