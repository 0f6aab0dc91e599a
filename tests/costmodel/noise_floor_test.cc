// The noise floor against values computed by hand: only samples whose inputs were measured more
// than once count, each predicted by the median of the others.
#include "costmodel/noise_floor.h"

#include <vector>

#include <gtest/gtest.h>

namespace tensorperf::costmodel {
namespace {

Sample sample(float program, double seconds, const std::string& device = "d1") {
  Sample s;
  s.program = {program, 1.0f};
  s.device = {2.0f};
  s.seconds = seconds;
  s.workload = "w";
  s.device_key = device;
  s.provider = "halide";
  return s;
}

TEST(NoiseFloor, RepeatedInputsArePredictedByTheMedianOfTheirOtherMeasurements) {
  const std::vector<Sample> samples = {
      sample(0.5f, 1.0),        // 0: measured thrice with 2 and 3
      sample(0.5f, 2.0),        // 1
      sample(0.5f, 3.0),        // 2
      sample(0.7f, 4.0),        // 3: measured once: not in the floor
      sample(0.5f, 5.0, "d2"),  // 4: same program, another device: a group of its own (once)
      sample(0.9f, 1.0),        // 5: twice, with 6
      sample(0.9f, 1.5),        // 6
      sample(0.9f, 0.0),        // 7: not measured: ignored
  };
  const std::vector<size_t> subset = {0, 2, 3, 4, 5, 7};
  NoiseFloor f = RepeatIndex(samples).floor(subset);
  ASSERT_EQ(f.positions, (std::vector<size_t>{0, 1, 4}));
  ASSERT_EQ(f.predicted.size(), 3u);
  EXPECT_DOUBLE_EQ(f.predicted[0], 2.5);  // sample 0: median of 2 and 3
  EXPECT_DOUBLE_EQ(f.predicted[1], 1.5);  // sample 2: median of 1 and 2
  EXPECT_DOUBLE_EQ(f.predicted[2], 1.5);  // sample 5: its one other measurement (6, outside the subset)
}

TEST(NoiseFloor, NoRepeatsNoFloor) {
  const std::vector<Sample> samples = {sample(0.1f, 1.0), sample(0.2f, 1.0)};
  const std::vector<size_t> all = {0, 1};
  EXPECT_TRUE(RepeatIndex(samples).floor(all).positions.empty());
}

}  // namespace
}  // namespace tensorperf::costmodel
