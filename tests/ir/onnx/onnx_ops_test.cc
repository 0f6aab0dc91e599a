// One test per converted operator family: the IR ops, attributes and shapes each ONNX pattern
// becomes.
#include <gtest/gtest.h>

#include "onnx_fixtures.h"

namespace tensorperf::ir {
namespace {

using testing::constant_floats;
using testing::import_fixture;
using testing::only_node;
using testing::op_sequence;
using Ints = std::vector<int64_t>;
using Ops = std::vector<std::string>;

Graph load(const std::string& name, const OnnxImportOptions& options = {}) {
  Result<Graph> g = import_fixture(name, options);
  if (!g.ok()) throw std::runtime_error(g.status().message());
  return std::move(g).value();
}

std::string output_type(const Graph& g, size_t i = 0) { return g.type(g.outputs().at(i)).to_string(); }

TEST(OnnxConv, AttributesMapToConv2d) {
  Graph g = load("conv");
  const Node& n = only_node(g, OpKind::kConv2d);
  EXPECT_EQ(n.attrs.get_ints("strides", {}), (Ints{2, 1}));
  EXPECT_EQ(n.attrs.get_ints("pads", {}), (Ints{1, 2, 3, 4}));  // top, left, bottom, right
  EXPECT_EQ(n.attrs.get_ints("dilations", {}), (Ints{1, 2}));
  EXPECT_EQ(n.attrs.get_int("groups", 0), 1);
  EXPECT_EQ(output_type(g), "float32[1,8,9,18]");
}

TEST(OnnxConv, SameUpperPadsTheEnd) {
  Graph g = load("conv_same_upper");
  EXPECT_EQ(only_node(g, OpKind::kConv2d).attrs.get_ints("pads", {}), (Ints{0, 0, 1, 1}));
  EXPECT_EQ(output_type(g), "float32[1,4,4,4]");
}

TEST(OnnxConv, DepthwiseKeepsGroups) {
  Graph g = load("conv_depthwise");
  EXPECT_EQ(only_node(g, OpKind::kConv2d).attrs.get_int("groups", 0), 6);
  EXPECT_EQ(output_type(g), "float32[1,6,10,10]");
}

TEST(OnnxGemm, TransBIsDenseWithBias) {
  Graph g = load("gemm");
  const Node& n = only_node(g, OpKind::kDense);
  ASSERT_EQ(n.inputs.size(), 3u);
  EXPECT_EQ(g.value(n.inputs[1]).name, "w") << "the initializer itself is the weight";
  EXPECT_EQ(g.type(n.inputs[2]).to_string(), "float32[4]");
  EXPECT_EQ(output_type(g), "float32[2,4]");
}

TEST(OnnxGemm, TransBZeroTransposesAndScalesConstants) {
  Graph g = load("gemm_transb0_alpha");
  const Node& n = only_node(g, OpKind::kDense);
  ASSERT_EQ(n.inputs.size(), 3u);
  // B = [[0,1],[2,3],[4,5]], alpha 2: weight = 2 * B^T; C = [[0,1]], beta 0.5: bias = [0, 0.5].
  EXPECT_EQ(g.type(n.inputs[1]).to_string(), "float32[2,3]");
  EXPECT_EQ(constant_floats(g, n.inputs[1]), (std::vector<float>{0, 4, 8, 2, 6, 10}));
  EXPECT_EQ(constant_floats(g, n.inputs[2]), (std::vector<float>{0, 0.5f}));
  EXPECT_EQ(output_type(g), "float32[2,2]");
}

TEST(OnnxGemm, TwoComputedInputsMakeMatmul) {
  Graph g = load("gemm_two_inputs");
  const Node& n = only_node(g, OpKind::kMatmul);
  EXPECT_EQ(n.attrs.get_int("transpose_a", 0), 1);
  EXPECT_EQ(n.attrs.get_int("transpose_b", 1), 0);
  EXPECT_EQ(output_type(g), "float32[2,5]");
}

TEST(OnnxMatMul, ConstantRightHandSideIsDense) {
  Graph g = load("matmul_const");
  const Node& n = only_node(g, OpKind::kDense);
  EXPECT_EQ(g.type(n.inputs[1]).to_string(), "float32[6,8]");
  EXPECT_EQ(constant_floats(g, n.inputs[1])[1], 6.0f);  // w^T[0][1] = w[1][0] = 6
  EXPECT_EQ(output_type(g), "float32[1,4,6]");
}

TEST(OnnxMatMul, ComputedOperandsAreMatmulOrBatchMatmul) {
  EXPECT_EQ(op_sequence(load("matmul_2d")), (Ops{"matmul"}));
  EXPECT_EQ(output_type(load("matmul_2d")), "float32[3,5]");
  EXPECT_EQ(op_sequence(load("matmul_batch")), (Ops{"batch_matmul"}));
  EXPECT_EQ(output_type(load("matmul_batch")), "float32[2,3,5]");
}

TEST(OnnxPool, MaxPoolAttributes) {
  Graph g = load("max_pool");
  const Node& n = only_node(g, OpKind::kMaxPool2d);
  EXPECT_EQ(n.attrs.get_ints("kernel", {}), (Ints{3, 3}));
  EXPECT_EQ(n.attrs.get_ints("strides", {}), (Ints{2, 2}));
  EXPECT_EQ(n.attrs.get_ints("pads", {}), (Ints{1, 1, 1, 1}));
  EXPECT_EQ(n.attrs.get_int("ceil_mode", 0), 1);
  EXPECT_EQ(output_type(g), "float32[1,4,5,5]");
}

TEST(OnnxPool, AveragePoolAttributes) {
  Graph g = load("avg_pool");
  const Node& n = only_node(g, OpKind::kAvgPool2d);
  EXPECT_EQ(n.attrs.get_ints("pads", {}), (Ints{0, 0, 1, 1}));
  EXPECT_EQ(n.attrs.get_int("count_include_pad", 0), 1);
  EXPECT_EQ(output_type(g), "float32[1,4,4,4]");
}

TEST(OnnxPool, GlobalAveragePool) {
  Graph g = load("global_avg_pool");
  EXPECT_EQ(op_sequence(g), (Ops{"global_avg_pool2d"}));
  EXPECT_EQ(output_type(g), "float32[1,4,1,1]");
}

TEST(OnnxPool, ZeroPadMergesIntoConv) {
  Graph g = load("pad_conv");
  EXPECT_EQ(op_sequence(g), (Ops{"conv2d"}));
  EXPECT_EQ(only_node(g, OpKind::kConv2d).attrs.get_ints("pads", {}), (Ints{3, 2, 1, 4}));
  EXPECT_EQ(output_type(g), "float32[1,4,10,12]");
}

TEST(OnnxPool, ZeroPadMergesIntoAveragePool) {
  Graph g = load("pad_avg_pool");
  EXPECT_EQ(op_sequence(g), (Ops{"avg_pool2d"}));
  const Node& n = only_node(g, OpKind::kAvgPool2d);
  EXPECT_EQ(n.attrs.get_ints("pads", {}), (Ints{1, 1, 1, 1}));
  EXPECT_EQ(n.attrs.get_int("count_include_pad", 0), 1);
  EXPECT_EQ(output_type(g), "float32[1,4,7,7]");
}

TEST(OnnxElementwise, ArithmeticActivationsAndClip) {
  Graph g = load("elementwise");
  EXPECT_EQ(op_sequence(g), (Ops{"add", "mul", "add", "mul", "relu", "sigmoid", "tanh", "relu6", "relu"}));
  EXPECT_EQ(output_type(g), "float32[1,4,5,5]");
  // Sub by 2 is add of -2; Div by 2 is mul by 0.5.
  const std::vector<NodeId> order = g.topo_order().value();
  EXPECT_EQ(constant_floats(g, g.node(order[2]).inputs[1]), (std::vector<float>{-2.0f}));
  EXPECT_EQ(constant_floats(g, g.node(order[3]).inputs[1]), (std::vector<float>{0.5f}));
}

TEST(OnnxElementwise, TorchGeluPatternIsOneGelu) {
  Graph g = load("gelu");
  EXPECT_EQ(op_sequence(g), (Ops{"gelu", "relu"}));
  EXPECT_EQ(g.value(only_node(g, OpKind::kGelu).inputs[0]).kind, ValueKind::kInput);
  EXPECT_EQ(output_type(g), "float32[2,16]");
}

TEST(OnnxElementwise, GeluPatternInTheOtherOrder) {
  Graph g = load("gelu_half_first");
  EXPECT_EQ(op_sequence(g), (Ops{"gelu"}));
  EXPECT_EQ(output_type(g), "float32[2,16]");
}

TEST(OnnxNormalization, BatchNormalization) {
  Graph g = load("batch_norm");
  const Node& n = only_node(g, OpKind::kBatchNorm);
  EXPECT_EQ(n.inputs.size(), 5u);
  EXPECT_NEAR(n.attrs.get_float("epsilon", 0), 1e-3, 1e-9);
  EXPECT_EQ(output_type(g), "float32[1,4,5,5]");
}

TEST(OnnxNormalization, LayerNormalizationOpset17) {
  Graph g = load("layer_norm");
  const Node& n = only_node(g, OpKind::kLayerNorm);
  EXPECT_EQ(n.attrs.get_int("axis", 0), -1);
  EXPECT_NEAR(n.attrs.get_float("epsilon", 0), 1e-6, 1e-12);
  EXPECT_EQ(output_type(g), "float32[2,7,16]");
  Graph no_bias = load("layer_norm_no_bias");
  const Node& m = only_node(no_bias, OpKind::kLayerNorm);
  ASSERT_EQ(m.inputs.size(), 3u);
  EXPECT_EQ(constant_floats(no_bias, m.inputs[2]), std::vector<float>(16, 0.0f));
}

TEST(OnnxNormalization, DecomposedLayerNormBeforeOpset17) {
  Graph g = load("layer_norm_decomposed");
  EXPECT_EQ(op_sequence(g), (Ops{"layer_norm"}));
  const Node& n = only_node(g, OpKind::kLayerNorm);
  EXPECT_EQ(n.attrs.get_int("axis", 0), -1);
  EXPECT_NEAR(n.attrs.get_float("epsilon", 0), 1e-5, 1e-10);
  EXPECT_EQ(g.value(n.inputs[1]).name, "g");
  EXPECT_EQ(g.value(n.inputs[2]).name, "b0");
  EXPECT_EQ(output_type(g), "float32[2,7,16]");
}

TEST(OnnxNormalization, Softmax) {
  Graph g = load("softmax");
  EXPECT_EQ(only_node(g, OpKind::kSoftmax).attrs.get_int("axis", 0), -1);
  Graph old = load("softmax_opset11");
  EXPECT_EQ(op_sequence(old), (Ops{"reshape", "softmax", "reshape"}));
  EXPECT_EQ(old.type(only_node(old, OpKind::kSoftmax).outputs[0]).to_string(), "float32[2,15]");
  EXPECT_EQ(output_type(old), "float32[2,3,5]");
}

TEST(OnnxLayout, ConcatNormalisesTheAxis) {
  Graph g = load("concat");
  EXPECT_EQ(only_node(g, OpKind::kConcat).attrs.get_int("axis", -1), 1);
  EXPECT_EQ(output_type(g), "float32[1,5,4,4]");
}

TEST(OnnxLayout, SplitSizesFromInputAndAttribute) {
  Graph g = load("split13");
  EXPECT_EQ(only_node(g, OpKind::kSplit).attrs.get_ints("sizes", {}), (Ints{2, 4}));
  EXPECT_EQ(output_type(g, 0), "float32[1,2,4]");
  EXPECT_EQ(output_type(g, 1), "float32[1,4,4]");
  Graph old = load("split11");
  EXPECT_EQ(only_node(old, OpKind::kSplit).attrs.get_ints("sizes", {}), (Ints{3, 3, 3}));
  EXPECT_EQ(only_node(old, OpKind::kSplit).attrs.get_int("axis", 0), 2);
  EXPECT_EQ(output_type(old, 2), "float32[1,6,3]");
}

TEST(OnnxLayout, SliceIsClampedAndNormalised) {
  Graph g = load("slice");
  const Node& n = only_node(g, OpKind::kSlice);
  EXPECT_EQ(n.attrs.get_ints("starts", {}), (Ints{1, 6}));
  EXPECT_EQ(n.attrs.get_ints("ends", {}), (Ints{8, 10}));
  EXPECT_EQ(n.attrs.get_ints("axes", {}), (Ints{1, 2}));
  EXPECT_EQ(n.attrs.get_ints("steps", {}), (Ints{2, 1}));
  EXPECT_EQ(output_type(g), "float32[1,4,4]");
}

TEST(OnnxLayout, ShapeArithmeticFoldsIntoReshape) {
  Graph g = load("reshape_chain");
  EXPECT_EQ(op_sequence(g), (Ops{"reshape"}));
  EXPECT_EQ(only_node(g, OpKind::kReshape).attrs.get_ints("shape", {}), (Ints{3, -1}));
  EXPECT_EQ(output_type(g), "float32[3,16]");
  Graph g5 = load("reshape_chain", {.batch = 5});
  EXPECT_EQ(output_type(g5), "float32[5,16]");
}

// Equal, Where and Expand fold the class token to a constant of the batch; the Gather of one index
// of a computed tensor is a slice of that row and a reshape that drops the axis.
TEST(OnnxLayout, ViTsClassTokenFoldsAndItsGatherIsASlice) {
  Graph g = load("class_token");
  EXPECT_EQ(op_sequence(g), (Ops{"concat", "slice", "reshape"}));
  EXPECT_EQ(only_node(g, OpKind::kSlice).attrs.get_ints("axes", {}), (Ints{1}));
  EXPECT_EQ(only_node(g, OpKind::kSlice).attrs.get_ints("starts", {}), (Ints{0}));
  EXPECT_EQ(output_type(g), "float32[1,4]");
  const Node& concat = only_node(g, OpKind::kConcat);
  EXPECT_EQ(constant_floats(g, concat.inputs[0]), (std::vector<float>{0, 1, 2, 3}));
}

TEST(OnnxLayout, SwinsShapeArithmeticFoldsAndItsNoOpsVanish) {
  Graph g = load("swin_folds");
  EXPECT_EQ(op_sequence(g), (Ops{"add", "add", "relu", "relu"}));
  std::vector<std::vector<float>> added;
  for (const Node& n : g.nodes())
    if (n.op == OpKind::kAdd) added.push_back(constant_floats(g, n.inputs[1]));
  ASSERT_EQ(added.size(), 2u);
  EXPECT_EQ(added[0], (std::vector<float>{0, 41, 2, 59}));      // range + scatter * 2^3
  EXPECT_EQ(added[1], (std::vector<float>{2, 1, 0, 5, 4, 3}));  // each row reversed
  for (const Node& n : g.nodes()) {
    if (n.op == OpKind::kRelu) {
      EXPECT_EQ(g.value(n.inputs[0]).kind, ValueKind::kInput);
    }
  }
}

TEST(OnnxLayout, ModTakesTheDivisorsSign) {
  Graph g = load("mod_expand");
  EXPECT_EQ(output_type(g), "float32[2,2]");  // Mod([-4, 5], 3) = [2, 2]
}

TEST(OnnxLayout, TransposeAndFlatten) {
  Graph g = load("transpose_flatten");
  EXPECT_EQ(op_sequence(g), (Ops{"transpose", "flatten"}));
  EXPECT_EQ(only_node(g, OpKind::kTranspose).attrs.get_ints("perm", {}), (Ints{0, 2, 3, 1}));
  EXPECT_EQ(only_node(g, OpKind::kFlatten).attrs.get_int("axis", 0), 2);
  EXPECT_EQ(output_type(g), "float32[4,15]");
}

TEST(OnnxLayout, SqueezeAndUnsqueezeAreReshapes) {
  Graph g = load("squeeze_unsqueeze");
  EXPECT_EQ(op_sequence(g), (Ops{"reshape", "reshape"}));
  EXPECT_EQ(output_type(g), "float32[1,2,5,1]");
}

TEST(OnnxLayout, IdentityAndDropoutPassThrough) {
  Graph g = load("identity_dropout");
  EXPECT_EQ(op_sequence(g), (Ops{"relu"}));
  EXPECT_EQ(g.value(only_node(g, OpKind::kRelu).inputs[0]).kind, ValueKind::kInput);
}

}  // namespace
}  // namespace tensorperf::ir
