#include "db/best_selection.h"

#include <gtest/gtest.h>

namespace tensorperf::db {
namespace {

StoredRecord rec(int64_t id, const std::string& workload, std::optional<double> cost) {
  StoredRecord r;
  r.id = id;
  r.format = RecordFormat::kAutotvmV02;
  r.workload_key = workload;
  r.error_no = cost ? 0 : 4;
  r.mean_cost = cost;
  return r;
}

TEST(BestSelectionTest, LowerMeanCostWinsTiesKeepEarlierErrorsSkipped) {
  DeviceDescription dev = describe_tvm_target("llvm -mcpu=core-avx2");
  BestSelection s;
  s.add(rec(1, "w", 2.0), dev);
  s.add(rec(2, "w", std::nullopt), dev);
  s.add(rec(3, "w", 1.0), dev);
  s.add(rec(4, "w", 1.0), dev);
  s.add(rec(5, "v", std::nullopt), dev);
  EXPECT_EQ(s.selected_ids(), std::vector<int64_t>({3}));
}

TEST(BestSelectionTest, ModelAndTargetKeyAreSeparateWinners) {
  DeviceDescription a = describe_tvm_target("llvm -device=arm_cpu -model=rk3399");
  DeviceDescription b = describe_tvm_target("llvm -device=arm_cpu -model=pynq");
  DeviceDescription x86 = describe_tvm_target("llvm -mcpu=core-avx2");
  BestSelection s;
  s.add(rec(1, "w", 3.0), a);    // best for model rk3399
  s.add(rec(2, "w", 2.0), b);    // best for model pynq and for key arm_cpu
  s.add(rec(3, "w", 1.0), x86);  // best for key cpu
  EXPECT_EQ(s.selected_ids(), std::vector<int64_t>({1, 2, 3}));
}

}  // namespace
}  // namespace tensorperf::db
