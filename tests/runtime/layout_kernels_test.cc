#include "runtime/layout_kernels.h"

#include <gtest/gtest.h>

#include <numeric>

namespace tensorperf::runtime {
namespace {

using kernels::HostTensor;

HostTensor iota_tensor(ir::Shape shape) {
  HostTensor t(ir::TensorType{std::move(shape), ir::DType::kFloat32});
  std::iota(t.f32(), t.f32() + t.num_elements(), 0.0f);
  return t;
}

HostTensor typed(ir::Shape shape) { return HostTensor(ir::TensorType{std::move(shape), ir::DType::kFloat32}); }

TEST(LayoutKernels, TransposeMovesEveryElementToItsPermutedIndex) {
  HostTensor x = iota_tensor({2, 3, 4});
  HostTensor y = typed({4, 2, 3});
  ir::Attrs a;
  a.set("perm", std::vector<int64_t>{2, 0, 1});
  ASSERT_TRUE(run_layout_op(ir::OpKind::kTranspose, a, {&x}, {&y}).ok());
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(y.f32()[(k * 2 + i) * 3 + j], x.f32()[(i * 3 + j) * 4 + k]);
}

TEST(LayoutKernels, SliceWithStepsAndNegativeIndices) {
  HostTensor x = iota_tensor({4, 10});
  // x[1:4, 8:1:-3] -> rows 1,2,3; columns 8, 5, 2.
  HostTensor y = typed({3, 3});
  ir::Attrs a;
  a.set("starts", std::vector<int64_t>{1, -2});
  a.set("ends", std::vector<int64_t>{100, 1});
  a.set("axes", std::vector<int64_t>{0, 1});
  a.set("steps", std::vector<int64_t>{1, -3});
  ASSERT_TRUE(run_layout_op(ir::OpKind::kSlice, a, {&x}, {&y}).ok());
  const int cols[] = {8, 5, 2};
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(y.f32()[r * 3 + c], x.f32()[(r + 1) * 10 + cols[c]]);
}

TEST(LayoutKernels, ConcatThenSplitAlongAnInnerAxisRoundTrips) {
  HostTensor a = iota_tensor({2, 3, 2});
  HostTensor b = iota_tensor({2, 1, 2});
  for (int64_t i = 0; i < b.num_elements(); ++i) b.f32()[i] += 100;
  HostTensor cat = typed({2, 4, 2});
  ir::Attrs attrs;
  attrs.set("axis", int64_t{1});
  ASSERT_TRUE(run_layout_op(ir::OpKind::kConcat, attrs, {&a, &b}, {&cat}).ok());
  // Batch 1, channel 3 is b's row.
  EXPECT_EQ(cat.f32()[(1 * 4 + 3) * 2 + 1], b.f32()[(1 * 1 + 0) * 2 + 1]);
  EXPECT_EQ(cat.f32()[(1 * 4 + 2) * 2 + 0], a.f32()[(1 * 3 + 2) * 2 + 0]);
  HostTensor a2 = typed({2, 3, 2}), b2 = typed({2, 1, 2});
  ASSERT_TRUE(run_layout_op(ir::OpKind::kSplit, attrs, {&cat}, {&a2, &b2}).ok());
  EXPECT_EQ(max_scaled_error(a2, a), 0.0);
  EXPECT_EQ(max_scaled_error(b2, b), 0.0);
}

// Tensors of NCHW shape held channels last: element (n, c, h, w) at ((n * H + h) * W + w) * C + c.
TEST(LayoutKernels, ChannelsLastConcatPutsEachPixelsChannelsSideBySide) {
  const int64_t N = 2, H = 3, W = 5, C1 = 3, C2 = 4;
  HostTensor a = iota_tensor({N, C1, H, W}), b = iota_tensor({N, C2, H, W});
  for (int64_t i = 0; i < b.num_elements(); ++i) b.f32()[i] += 1000;
  for (int threads : {1, 2}) {
    HostTensor y = typed({N, C1 + C2, H, W});
    ASSERT_TRUE(run_channels_last_concat({&a, &b}, y, threads).ok());
    for (int64_t n = 0; n < N; ++n)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w)
          for (int64_t c = 0; c < C1 + C2; ++c) {
            const int64_t pixel = (n * H + h) * W + w;
            const float want = c < C1 ? a.f32()[pixel * C1 + c] : b.f32()[pixel * C2 + (c - C1)];
            ASSERT_EQ(y.f32()[pixel * (C1 + C2) + c], want) << threads << " threads, n " << n << " c " << c;
          }
  }
  HostTensor wrong_channels = typed({N, C1 + C2 + 1, H, W}), wrong_pixels = typed({N, C1 + C2, H, W + 1});
  EXPECT_FALSE(run_channels_last_concat({&a, &b}, wrong_channels).ok());
  EXPECT_FALSE(run_channels_last_concat({&a, &b}, wrong_pixels).ok());
}

TEST(LayoutKernels, OtherOpsAreRefused) {
  HostTensor x = iota_tensor({2});
  HostTensor y = typed({2});
  EXPECT_FALSE(run_layout_op(ir::OpKind::kRelu, {}, {&x}, {&y}).ok());
}

}  // namespace
}  // namespace tensorperf::runtime
