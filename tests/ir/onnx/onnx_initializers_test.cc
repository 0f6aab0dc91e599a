// Initializers, ordering and graph inputs: weights keep their data, nodes are sorted, batch options.
#include <gtest/gtest.h>

#include "onnx_fixtures.h"

namespace tensorperf::ir {
namespace {

using testing::constant_floats;
using testing::import_fixture;
using testing::only_node;
using testing::op_sequence;

TEST(OnnxInitializers, TypedFieldsAndRawDataKeepTheirValues) {
  Result<Graph> g = import_fixture("typed_initializer");
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Node& dense = only_node(*g, OpKind::kDense);
  ASSERT_EQ(dense.inputs.size(), 3u);
  EXPECT_EQ(constant_floats(*g, dense.inputs[1]), (std::vector<float>{1.5f, -2.0f, 3.25f, 4.0f, 5.0f, -6.5f}));
  EXPECT_EQ(constant_floats(*g, dense.inputs[2]), (std::vector<float>{0.25f, -0.5f}));
  EXPECT_EQ(g->value(dense.inputs[1]).name, "w");
}

TEST(OnnxInitializers, ConvWeightsAreConstantsWithData) {
  Result<Graph> g = import_fixture("conv");
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Node& conv = only_node(*g, OpKind::kConv2d);
  ASSERT_EQ(conv.inputs.size(), 3u);
  EXPECT_TRUE(g->is_constant(conv.inputs[1]));
  EXPECT_EQ(g->type(conv.inputs[1]).to_string(), "float32[8,3,3,3]");
  const std::vector<float> w = constant_floats(*g, conv.inputs[1]);
  ASSERT_EQ(w.size(), 216u);
  EXPECT_EQ(w[5], 5.0f);
  EXPECT_EQ(w[215], 215.0f);
  EXPECT_EQ(g->inputs().size(), 1u) << "initializers are constants, not graph inputs";
}

TEST(OnnxInitializers, NodesOutOfOrderAreSorted) {
  Result<Graph> g = import_fixture("out_of_order");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(op_sequence(*g), (std::vector<std::string>{"conv2d", "relu"}));
  ASSERT_EQ(g->outputs().size(), 1u);
  EXPECT_EQ(g->type(g->outputs()[0]).to_string(), "float32[1,4,6,6]");
}

TEST(OnnxInitializers, SymbolicBatchDefaultsToOneAndBatchOptionOverrides) {
  Result<Graph> g = import_fixture("symbolic_batch");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->type(g->inputs()[0]).to_string(), "float32[1,3,8,8]");
  Result<Graph> g4 = import_fixture("symbolic_batch", {.batch = 4});
  ASSERT_TRUE(g4.ok()) << g4.status().message();
  EXPECT_EQ(g4->type(g4->outputs()[0]).to_string(), "float32[4,3,8,8]");
}

TEST(OnnxInitializers, GraphIsNamedAfterTheFile) {
  Result<Graph> g = import_fixture("conv");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->name(), "conv");
}

}  // namespace
}  // namespace tensorperf::ir
