#include "kernels/host_tensor.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace tensorperf::kernels {
namespace {

TEST(HostTensor, ZeroFilledAndAligned) {
  HostTensor t(ir::TensorType{{3, 5}, ir::DType::kFloat32});
  EXPECT_EQ(t.num_elements(), 15);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.f32()) % 64, 0u);
  for (int i = 0; i < 15; ++i) EXPECT_EQ(t.f32()[i], 0.0f);
}

TEST(HostTensor, FillRandomStaysInRangeAndIsNotZero) {
  HostTensor t(ir::TensorType{{1000}, ir::DType::kFloat32});
  std::mt19937_64 rng(1);
  t.fill_random(rng, 0.5f, 2.0f);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_GE(t.f32()[i], 0.5f);
    EXPECT_LT(t.f32()[i], 2.0f);
  }
}

TEST(HostTensor, MaxScaledError) {
  ir::TensorType type{{2}, ir::DType::kFloat32};
  HostTensor a(type), b(type);
  a.f32()[0] = 1.0f;
  b.f32()[0] = 1.0f;
  EXPECT_EQ(max_scaled_error(a, b), 0.0);
  a.f32()[1] = 0.01f;  // |diff| = 0.01 against atol 1e-4 -> 100
  EXPECT_NEAR(max_scaled_error(a, b), 100.0, 1e-3);
}

}  // namespace
}  // namespace tensorperf::kernels
