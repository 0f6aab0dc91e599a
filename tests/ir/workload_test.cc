#include "ir/workload.h"

#include <gtest/gtest.h>

namespace tensorperf::ir {
namespace {

TensorType f32(Shape s) { return TensorType{std::move(s), DType::kFloat32}; }

Workload conv3x3() {
  Workload w;
  w.op = OpKind::kConv2d;
  w.inputs = {f32({1, 64, 56, 56}), f32({64, 64, 3, 3})};
  w.attrs = {{"strides", std::vector<int64_t>{1, 1}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}},
             {"dilations", std::vector<int64_t>{1, 1}}, {"groups", int64_t{1}}};
  w.epilogue = {"bias", "relu"};
  w.output = f32({1, 64, 56, 56});
  return w;
}

TEST(Workload, KeyIsCanonical) {
  EXPECT_EQ(conv3x3().key(),
            "conv2d|float32[1,64,56,56];float32[64,64,3,3]|dilations=[1,1];groups=1;pads=[1,1,1,1];strides=[1,1]|bias+relu");
}

TEST(Workload, KeyRoundTripsWithOutput) {
  auto w = parse_workload_key(conv3x3().key());
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(w->key(), conv3x3().key());
  EXPECT_EQ(w->output, f32({1, 64, 56, 56}));
  EXPECT_EQ(w->epilogue, (std::vector<std::string>{"bias", "relu"}));
}

TEST(Workload, FlopsCountMacsTwiceEpilogueApart) {
  // 64*56*56 outputs x 64*9 MACs; bias and relu once per output, counted apart.
  double outputs = 64.0 * 56 * 56;
  EXPECT_DOUBLE_EQ(conv3x3().flops(), 2 * outputs * 64 * 9);
  EXPECT_DOUBLE_EQ(conv3x3().epilogue_flops(), 2 * outputs);
}

TEST(Workload, ParseRejectsMalformedKeys) {
  for (const char* bad : {"", "conv2d", "conv2d|float32[1]|", "conv9|float32[1,3,8,8];float32[4,3,3,3]||",
                          "conv2d|float32[1,3,8,8];float32[4,3,3,3]||softplus",
                          "conv2d|float32[1,3,8,8];float32[4,5,3,3]||"}) {
    EXPECT_FALSE(parse_workload_key(bad).ok()) << bad;
  }
  EXPECT_TRUE(parse_workload_key("relu|float32[2,3]||").ok());
}

}  // namespace
}  // namespace tensorperf::ir
