#include "ir/op_registry.h"

#include <gtest/gtest.h>

namespace tensorperf::ir {
namespace {

TensorType f32(Shape s) { return TensorType{std::move(s), DType::kFloat32}; }

Shape infer1(OpKind op, std::vector<TensorType> in, Attrs attrs) {
  auto r = infer_op(op, in, attrs, 1);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r->front().shape : Shape{};
}

TEST(OpRegistry, Conv2dShapesAndFlops) {
  Attrs a{{"strides", std::vector<int64_t>{2, 2}}, {"pads", std::vector<int64_t>{3, 3, 3, 3}}};
  std::vector<TensorType> in{f32({1, 3, 224, 224}), f32({64, 3, 7, 7})};
  EXPECT_EQ(infer1(OpKind::kConv2d, in, a), (Shape{1, 64, 112, 112}));
  // ResNet's stem: 118,013,952 MACs.
  EXPECT_DOUBLE_EQ(op_flops(OpKind::kConv2d, in, a, {f32({1, 64, 112, 112})}), 2.0 * 118013952);
  // depthwise with dilation 2
  Attrs dw{{"groups", int64_t{32}}, {"dilations", std::vector<int64_t>{2, 2}}, {"pads", std::vector<int64_t>{2, 2, 2, 2}}};
  EXPECT_EQ(infer1(OpKind::kConv2d, {f32({2, 32, 17, 17}), f32({32, 1, 3, 3})}, dw), (Shape{2, 32, 17, 17}));
}

TEST(OpRegistry, Conv2dErrorsSayWhy) {
  auto r = infer_op(OpKind::kConv2d, {f32({1, 3, 8, 8}), f32({8, 4, 3, 3})}, {}, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("input channels"), std::string::npos) << r.status().message();
  EXPECT_FALSE(infer_op(OpKind::kConv2d, {f32({1, 3, 2, 2}), f32({8, 3, 3, 3})}, {}, 1).ok());  // kernel too big
  EXPECT_FALSE(infer_op(OpKind::kConv2d, {f32({1, 3, 8, 8})}, {}, 1).ok());                      // arity
  EXPECT_FALSE(infer_op(OpKind::kConv2d, {f32({1, 3, 8, 8}), f32({8, 3, 3, 3}), f32({7})}, {}, 1).ok());  // bias
  auto wrong_type = infer_op(OpKind::kConv2d, {f32({1, 3, 8, 8}), f32({8, 3, 3, 3})}, {{"groups", std::string("x")}}, 1);
  EXPECT_FALSE(wrong_type.ok());
}

TEST(OpRegistry, PoolCeilModeFollowsPyTorch) {
  Attrs a{{"kernel", std::vector<int64_t>{3, 3}}, {"strides", std::vector<int64_t>{2, 2}}, {"ceil_mode", int64_t{1}}};
  // SqueezeNet 1.1: 111 -> 55 with ceil_mode (floor would give 55 too), 55 -> 27, 27 -> 13.
  EXPECT_EQ(infer1(OpKind::kMaxPool2d, {f32({1, 64, 111, 111})}, a), (Shape{1, 64, 55, 55}));
  EXPECT_EQ(infer1(OpKind::kMaxPool2d, {f32({1, 64, 56, 56})}, a), (Shape{1, 64, 28, 28}));  // floor: 27
  a.set("ceil_mode", int64_t{0});
  EXPECT_EQ(infer1(OpKind::kMaxPool2d, {f32({1, 64, 56, 56})}, a), (Shape{1, 64, 27, 27}));
  // ceil mode never starts a window in the padding: 5x5, k2 s2 p1 -> 3 (not 4)
  Attrs p{{"kernel", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}},
          {"pads", std::vector<int64_t>{1, 1, 1, 1}}, {"ceil_mode", int64_t{1}}};
  EXPECT_EQ(infer1(OpKind::kAvgPool2d, {f32({1, 1, 5, 5})}, p), (Shape{1, 1, 3, 3}));
  EXPECT_EQ(infer1(OpKind::kGlobalAvgPool2d, {f32({4, 512, 7, 7})}, {}), (Shape{4, 512, 1, 1}));
  EXPECT_FALSE(infer_op(OpKind::kMaxPool2d, {f32({1, 1, 5, 5})}, {}, 1).ok());  // kernel required
}

TEST(OpRegistry, MatmulFamily) {
  EXPECT_EQ(infer1(OpKind::kDense, {f32({2, 128, 768}), f32({3072, 768}), f32({3072})}, {}), (Shape{2, 128, 3072}));
  EXPECT_DOUBLE_EQ(op_flops(OpKind::kDense, {f32({1, 512}), f32({1000, 512})}, {}, {f32({1, 1000})}), 2.0 * 512000);
  EXPECT_EQ(infer1(OpKind::kMatmul, {f32({8, 4}), f32({6, 4})}, {{"transpose_b", int64_t{1}}}), (Shape{8, 6}));
  EXPECT_EQ(infer1(OpKind::kBatchMatmul, {f32({1, 12, 128, 64}), f32({1, 12, 128, 64})}, {{"transpose_b", int64_t{1}}}),
            (Shape{1, 12, 128, 128}));
  EXPECT_EQ(infer1(OpKind::kBatchMatmul, {f32({4, 1, 3, 5}), f32({6, 5, 2})}, {}), (Shape{4, 6, 3, 2}));
  EXPECT_FALSE(infer_op(OpKind::kDense, {f32({1, 500}), f32({1000, 512})}, {}, 1).ok());
  EXPECT_FALSE(infer_op(OpKind::kBatchMatmul, {f32({2, 3, 5}), f32({3, 5, 2})}, {}, 1).ok());
}

TEST(OpRegistry, ElementwiseBroadcastAndBatchNorm) {
  EXPECT_EQ(infer1(OpKind::kAdd, {f32({1, 64, 8, 8}), f32({64, 1, 1})}, {}), (Shape{1, 64, 8, 8}));
  EXPECT_FALSE(infer_op(OpKind::kAdd, {f32({1, 64, 8, 8}), f32({32, 1, 1})}, {}, 1).ok());
  EXPECT_EQ(infer1(OpKind::kBatchNorm, {f32({1, 8, 4, 4}), f32({8}), f32({8}), f32({8}), f32({8})}, {}), (Shape{1, 8, 4, 4}));
  EXPECT_FALSE(infer_op(OpKind::kBatchNorm, {f32({1, 8, 4, 4}), f32({8}), f32({8}), f32({8}), f32({9})}, {}, 1).ok());
}

TEST(OpRegistry, LayoutOps) {
  EXPECT_EQ(infer1(OpKind::kConcat, {f32({1, 64, 8, 8}), f32({1, 32, 8, 8})}, {{"axis", int64_t{1}}}), (Shape{1, 96, 8, 8}));
  EXPECT_FALSE(infer_op(OpKind::kConcat, {f32({1, 64, 8, 8}), f32({1, 32, 4, 8})}, {{"axis", int64_t{1}}}, 1).ok());
  auto split = infer_op(OpKind::kSplit, {f32({1, 96, 8, 8})}, {{"axis", int64_t{1}}, {"sizes", std::vector<int64_t>{64, 32}}}, 2);
  ASSERT_TRUE(split.ok());
  EXPECT_EQ((*split)[1].shape, (Shape{1, 32, 8, 8}));
  EXPECT_FALSE(infer_op(OpKind::kSplit, {f32({1, 96, 8, 8})}, {{"axis", int64_t{1}}, {"sizes", std::vector<int64_t>{64, 30}}}, 2).ok());
  EXPECT_EQ(infer1(OpKind::kSlice, {f32({4, 10})}, {{"starts", std::vector<int64_t>{1}}, {"ends", std::vector<int64_t>{INT64_MAX}},
                                                     {"axes", std::vector<int64_t>{1}}, {"steps", std::vector<int64_t>{2}}}),
            (Shape{4, 5}));
  EXPECT_EQ(infer1(OpKind::kSlice, {f32({4, 10})}, {{"starts", std::vector<int64_t>{-1}}, {"ends", std::vector<int64_t>{INT64_MIN}},
                                                     {"axes", std::vector<int64_t>{1}}, {"steps", std::vector<int64_t>{-1}}}),
            (Shape{4, 10}));
  EXPECT_EQ(infer1(OpKind::kReshape, {f32({2, 128, 768})}, {{"shape", std::vector<int64_t>{0, 0, 12, -1}}}), (Shape{2, 128, 12, 64}));
  EXPECT_FALSE(infer_op(OpKind::kReshape, {f32({2, 3})}, {{"shape", std::vector<int64_t>{4, -1}}}, 1).ok());
  EXPECT_EQ(infer1(OpKind::kTranspose, {f32({2, 128, 12, 64})}, {{"perm", std::vector<int64_t>{0, 2, 1, 3}}}), (Shape{2, 12, 128, 64}));
  EXPECT_FALSE(infer_op(OpKind::kTranspose, {f32({2, 3})}, {{"perm", std::vector<int64_t>{0, 0}}}, 1).ok());
  EXPECT_EQ(infer1(OpKind::kFlatten, {f32({2, 512, 1, 1})}, {}), (Shape{2, 512}));
  EXPECT_EQ(infer1(OpKind::kLayerNorm, {f32({1, 128, 768}), f32({768}), f32({768})}, {{"epsilon", 1e-12}}), (Shape{1, 128, 768}));
  EXPECT_FALSE(infer_op(OpKind::kSoftmax, {f32({2, 3})}, {{"axis", int64_t{2}}}, 1).ok());
}

}  // namespace
}  // namespace tensorperf::ir
