#include "db/target_info.h"

#include <gtest/gtest.h>

namespace tensorperf::db {
namespace {

using Keys = std::vector<std::string>;

TEST(TargetInfoTest, DefaultKeysFollowTheTargetKind) {
  EXPECT_EQ(describe_tvm_target("llvm -mcpu=skylake-avx512").keys, Keys({"cpu"}));
  EXPECT_EQ(describe_tvm_target("llvm -mcpu=skylake-avx512").mcpu, "skylake-avx512");
  EXPECT_EQ(describe_tvm_target("cuda -model=titanx").keys, Keys({"cuda", "gpu"}));
  EXPECT_EQ(describe_tvm_target("cuda -model=titanx").model, "titanx");
}

TEST(TargetInfoTest, DeviceComesBeforeDefaultKeys) {
  DeviceDescription arm = describe_tvm_target("llvm -device=arm_cpu -model=rk3399 -mtriple=aarch64-linux-gnu");
  EXPECT_EQ(arm.keys, Keys({"arm_cpu", "cpu"}));
  EXPECT_EQ(arm.model, "rk3399");
  EXPECT_EQ(describe_tvm_target("opencl -device=mali -model=rk3399").keys, Keys({"mali", "opencl", "gpu"}));
}

TEST(TargetInfoTest, UserKeysReplaceDefaultKeys) {
  EXPECT_EQ(describe_tvm_target("ext_dev -device=vta -keys=cpu -model=pynq_1x16").keys, Keys({"cpu", "vta"}));
  EXPECT_EQ(describe_tvm_target("cuda -keys=cuda,gpu -arch=sm_86 -max_num_threads=1024").keys, Keys({"cuda", "gpu"}));
  EXPECT_EQ(describe_tvm_target("llvm -keys=cpu -mcpu=core-avx2").model, "");
}

TEST(TargetInfoTest, NativeDeviceKeysAreTargetThenArchitecture) {
  DeviceDescription d = describe_native_device("x86_64-avx2-fma-amd-epyc-7b13-t2", "x86-64-linux-avx2-fma");
  EXPECT_EQ(d.keys, Keys({"x86-64-linux-avx2-fma", "x86-64"}));
  EXPECT_TRUE(looks_like_tvm_target("llvm -mcpu=core-avx2"));
  EXPECT_FALSE(looks_like_tvm_target("x86_64-avx2-fma-amd-epyc-7b13-t2"));
}

}  // namespace
}  // namespace tensorperf::db
