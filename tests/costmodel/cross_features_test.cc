#include "costmodel/cross_features.h"

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "costmodel/cost_model.h"
#include "costmodel/roofline.h"
#include "features/program_features.h"
#include "measure/device.h"

namespace tensorperf::costmodel {
namespace {

size_t cross_column(const std::string& name) {
  const auto& names = cross_feature_names();
  return static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

// A program that moves `bytes` (in0 and out, half each) and does `flops`, on a device of `threads`
// threads, 32 KiB L1d and 1 MiB L2 per core, 32 MiB L3, 100 GFLOP/s and 10 GB/s.
Sample program(double bytes, double flops, double threads) {
  Sample s;
  s.program.assign(features::pooled_feature_names().size(), 0.0f);
  s.device.assign(measure::device_feature_names().size(), 0.0f);
  s.program[program_column("workload.log2_flops")] = static_cast<float>(std::log2(1 + flops));
  s.program[program_column("workload.log2_in0_bytes")] = static_cast<float>(std::log2(1 + bytes / 2));
  s.program[program_column("workload.log2_out_bytes")] = static_cast<float>(std::log2(1 + bytes / 2));
  s.device[device_column("threads")] = static_cast<float>(threads);
  s.device[device_column("l1d_kib")] = 32;
  s.device[device_column("l2_kib")] = 1024;
  s.device[device_column("l3_mib")] = 32;
  s.device[device_column("peak_gflops")] = 100;
  s.device[device_column("mem_bandwidth_gbs")] = 10;
  return s;
}

TEST(CrossFeatures, DataAgainstCachesAndIntensityAgainstBalance) {
  for (const char* name : {"cross.bytes_per_thread_over_l1", "cross.bytes_per_thread_over_l2", "cross.bytes_over_l3",
                           "cross.intensity_over_balance", "cross.roofline_us"})
    ASSERT_LT(cross_column(name), cross_feature_names().size()) << name;
  // 4 MiB over 2 threads: 2 MiB each, 64 L1s (2^6), 2 L2s (2^1); 1/8 of the L3 (2^-3).
  // 40 FLOP per byte on a device of 10 FLOP per byte/s: 2^2 above its balance.
  const double bytes = 4.0 * 1024 * 1024;
  const Sample s = program(bytes, 40 * bytes, 2);
  const std::vector<float> f = cross_features(s);
  ASSERT_EQ(f.size(), cross_feature_names().size());
  EXPECT_NEAR(f[cross_column("cross.bytes_per_thread_over_l1")], 6.0, 1e-4);
  EXPECT_NEAR(f[cross_column("cross.bytes_per_thread_over_l2")], 1.0, 1e-4);
  EXPECT_NEAR(f[cross_column("cross.bytes_over_l3")], -3.0, 1e-4);
  EXPECT_NEAR(f[cross_column("cross.intensity_over_balance")], 2.0, 1e-4);
  EXPECT_NEAR(f[cross_column("cross.roofline_us")], std::log2(roofline_seconds(s) * 1e6), 1e-4);
  // One thread: twice the bytes per core.
  EXPECT_NEAR(cross_features(program(bytes, 40 * bytes, 1))[cross_column("cross.bytes_per_thread_over_l2")], 2.0, 1e-4);
}

TEST(CrossFeatures, AreFiniteWithoutCachesOrPeaks) {
  Sample empty;
  empty.program.assign(features::pooled_feature_names().size(), 0.0f);
  empty.device.assign(measure::device_feature_names().size(), 0.0f);
  for (float v : cross_features(empty)) EXPECT_TRUE(std::isfinite(v));
}

// A table model's row is the program vector, the device vector, then the cross features; the
// saved schema names all three.
TEST(CrossFeatures, EndEveryTableModelsRow) {
  const Sample s = program(1 << 20, 1 << 24, 2);
  std::vector<float> row;
  append_row(s, row);
  ASSERT_EQ(row.size(), row_width());
  const std::vector<float> cross = cross_features(s);
  EXPECT_TRUE(std::equal(cross.begin(), cross.end(), row.end() - static_cast<std::ptrdiff_t>(cross.size())));
  EXPECT_EQ(feature_schema()["cross"], nlohmann::json(cross_feature_names()));
}

}  // namespace
}  // namespace tensorperf::costmodel
