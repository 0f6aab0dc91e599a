#include "ir/graph.h"

#include <gtest/gtest.h>

namespace tensorperf::ir {
namespace {

TensorType f32(Shape s) { return TensorType{std::move(s), DType::kFloat32}; }

// x -> conv -> relu -> (out); built with the eager API.
Graph small_graph() {
  Graph g("small");
  ValueId x = g.add_input("x", f32({1, 3, 8, 8}));
  ValueId w = g.add_constant("w", f32({4, 3, 3, 3}));
  ValueId c = g.add_op(OpKind::kConv2d, "conv", {x, w}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}}).value();
  ValueId r = g.add_op(OpKind::kRelu, "relu", {c}).value();
  g.mark_output(r);
  return g;
}

TEST(Graph, EagerInferenceAndValidate) {
  Graph g = small_graph();
  EXPECT_EQ(g.type(g.outputs()[0]), f32({1, 4, 8, 8}));
  EXPECT_TRUE(g.validate().ok());
  auto order = g.topo_order();
  ASSERT_TRUE(order.ok());
  EXPECT_EQ(*order, (std::vector<NodeId>{0, 1}));
  EXPECT_EQ(g.batch(), 1);
}

TEST(Graph, ShapeMismatchNamesTheNode) {
  Graph g("bad");
  ValueId x = g.add_input("x", f32({1, 3, 8, 8}));
  ValueId w = g.add_constant("w", f32({4, 5, 3, 3}));
  auto r = g.add_op(OpKind::kConv2d, "stem_conv", {x, w});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("stem_conv"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("conv2d"), std::string::npos);
  EXPECT_TRUE(g.nodes().empty());  // a failed add leaves the graph unchanged
  EXPECT_EQ(g.values().size(), 2u);
}

TEST(Graph, UnknownInputNamesTheNode) {
  Graph g;
  ValueId x = g.add_input("x", f32({1, 4}));
  auto r = g.add_op(OpKind::kAdd, "sum", {x, 17});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("\"sum\""), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("unknown input"), std::string::npos);
}

TEST(Graph, CycleIsDetectedAndNamed) {
  Graph g = small_graph();
  // conv reads relu's output: conv -> relu -> conv.
  g.set_node_input(0, 0, g.node(1).outputs[0]);
  auto order = g.topo_order();
  ASSERT_FALSE(order.ok());
  EXPECT_NE(order.status().message().find("cycle"), std::string::npos) << order.status().message();
  EXPECT_NE(order.status().message().find("\"conv\""), std::string::npos);
  EXPECT_FALSE(g.validate().ok());
}

TEST(Graph, ValidateCatchesStaleTypes) {
  Graph g = small_graph();
  g.set_node_input(1, 0, g.inputs()[0]);  // relu now reads x: its stored output type is stale
  Status s = g.validate();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("\"relu\""), std::string::npos) << s.message();
  EXPECT_TRUE(g.infer_types().ok());
  EXPECT_TRUE(g.validate().ok());
}

TEST(Graph, SetBatchReinfers) {
  Graph g = small_graph();
  ASSERT_TRUE(g.set_batch(8).ok());
  EXPECT_EQ(g.batch(), 8);
  EXPECT_EQ(g.type(g.outputs()[0]), f32({8, 4, 8, 8}));
  EXPECT_FALSE(g.set_batch(0).ok());
}

TEST(Graph, TopoOrderPutsProducersFirst) {
  Graph g;
  ValueId x = g.add_input("x", f32({1, 4}));
  // Built out of order: node 0 reads node 1's output through rewiring.
  NodeId a = g.add_node(OpKind::kRelu, "a", {x}).value();
  NodeId b = g.add_node(OpKind::kSigmoid, "b", {x}).value();
  g.set_node_input(a, 0, g.node(b).outputs[0]);
  auto order = g.topo_order();
  ASSERT_TRUE(order.ok());
  EXPECT_EQ(*order, (std::vector<NodeId>{b, a}));
  auto users = g.consumers();
  EXPECT_EQ(users[g.node(b).outputs[0]], std::vector<NodeId>{a});
}

TEST(Graph, MultiOutputNodes) {
  Graph g;
  ValueId x = g.add_input("x", f32({1, 6, 2, 2}));
  NodeId s = g.add_node(OpKind::kSplit, "split", {x}, {{"axis", int64_t{1}}}, 3).value();
  ASSERT_EQ(g.node(s).outputs.size(), 3u);
  EXPECT_EQ(g.value(g.node(s).outputs[2]).name, "split:2");
  EXPECT_EQ(g.type(g.node(s).outputs[2]), f32({1, 2, 2, 2}));
}

}  // namespace
}  // namespace tensorperf::ir
