// The reference on cases small enough to check by hand, and against oneDNN (a second, independent
// implementation) on every workload oneDNN supports is covered by onednn_provider_test.cc.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kernels/provider.h"
#include "test_workloads.h"

namespace tensorperf::kernels {
namespace {

using ir::OpKind;

TEST(Reference, ConvWithPaddingBiasAndRelu) {
  // 1x1 input channel, 3x3 all-ones kernel, pad 1: each output sums its 3x3 neighbourhood.
  ir::Workload w = testing::make_workload(
      OpKind::kConv2d, {{1, 1, 2, 2}, {1, 1, 3, 3}},
      {{"strides", std::vector<int64_t>{1, 1}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}},
       {"dilations", std::vector<int64_t>{1, 1}}, {"groups", int64_t{1}}},
      {"bias", "relu"});
  HostTensor x(w.inputs[0]), k(w.inputs[1]), b(ir::TensorType{{1}}), out(w.output);
  for (int i = 0; i < 4; ++i) x.f32()[i] = static_cast<float>(i + 1);  // 1 2 / 3 4
  for (int i = 0; i < 9; ++i) k.f32()[i] = 1.0f;
  b.f32()[0] = -10.5f;
  ASSERT_TRUE(run_reference(w, {&x, &k, &b}, out).ok());
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(out.f32()[i], 0.0f);  // 10 - 10.5 < 0 -> relu
  b.f32()[0] = -9.0f;
  ASSERT_TRUE(run_reference(w, {&x, &k, &b}, out).ok());
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(out.f32()[i], 1.0f);
}

TEST(Reference, SoftmaxRowsSumToOne) {
  ir::Workload w = testing::make_workload(OpKind::kSoftmax, {{3, 17}}, {{"axis", int64_t{-1}}});
  std::mt19937_64 rng(2);
  auto in = testing::random_inputs(w, rng);
  HostTensor out(w.output);
  ASSERT_TRUE(run_reference(w, testing::pointers(in), out).ok());
  for (int r = 0; r < 3; ++r) {
    double s = 0;
    for (int i = 0; i < 17; ++i) s += out.f32()[r * 17 + i];
    EXPECT_NEAR(s, 1.0, 1e-5);
  }
}

TEST(Reference, AvgPoolCountIncludePadFollowsPyTorch) {
  // 2x2 ones, kernel 2, stride 2, pad 1: each window holds 1 real element of 4 (padded) positions.
  auto attrs = [](int64_t include) {
    return ir::Attrs{{"kernel", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}},
                     {"pads", std::vector<int64_t>{1, 1, 1, 1}}, {"ceil_mode", int64_t{0}},
                     {"count_include_pad", include}};
  };
  for (int64_t include : {0, 1}) {
    ir::Workload w = testing::make_workload(OpKind::kAvgPool2d, {{1, 1, 2, 2}}, attrs(include));
    HostTensor x(w.inputs[0]), out(w.output);
    for (int i = 0; i < 4; ++i) x.f32()[i] = 1.0f;
    ASSERT_TRUE(run_reference(w, {&x}, out).ok());
    EXPECT_FLOAT_EQ(out.f32()[0], include ? 0.25f : 1.0f);
  }
}

TEST(Reference, GeluAndBatchNorm) {
  ir::Workload g = testing::make_workload(OpKind::kGelu, {{1}});
  HostTensor x(g.inputs[0]), y(g.output);
  x.f32()[0] = 1.0f;
  ASSERT_TRUE(run_reference(g, {&x}, y).ok());
  EXPECT_NEAR(y.f32()[0], 0.841345f, 1e-5);

  ir::Workload bn = testing::make_workload(OpKind::kBatchNorm, {{1, 1, 1, 1}, {1}, {1}, {1}, {1}}, {{"epsilon", 0.0}});
  HostTensor v(bn.inputs[0]), scale(bn.inputs[1]), bias(bn.inputs[2]), mean(bn.inputs[3]), var(bn.inputs[4]), o(bn.output);
  v.f32()[0] = 5;
  scale.f32()[0] = 2;
  bias.f32()[0] = 1;
  mean.f32()[0] = 3;
  var.f32()[0] = 4;
  ASSERT_TRUE(run_reference(bn, {&v, &scale, &bias, &mean, &var}, o).ok());
  EXPECT_FLOAT_EQ(o.f32()[0], (5.0f - 3.0f) / 2.0f * 2.0f + 1.0f);
}

TEST(Reference, RejectsLayoutOpsAndWrongInputs) {
  ir::Workload w = testing::make_workload(OpKind::kRelu, {{4}});
  HostTensor x(w.inputs[0]), out(w.output), wrong(ir::TensorType{{5}});
  EXPECT_EQ(run_reference(w, {&wrong}, out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(run_reference(w, {}, out).code(), StatusCode::kInvalidArgument);
  ir::Workload t = testing::make_workload(OpKind::kTranspose, {{2, 3}}, {{"perm", std::vector<int64_t>{1, 0}}});
  HostTensor a(t.inputs[0]), b(t.output);
  EXPECT_EQ(run_reference(t, {&a}, b).code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace tensorperf::kernels
