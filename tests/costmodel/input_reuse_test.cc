#include "costmodel/input_reuse.h"

#include <gtest/gtest.h>

#include "ir/task_extraction.h"

namespace tensorperf::costmodel {
namespace {

ir::TensorType f32(ir::Shape s) { return ir::TensorType{std::move(s), ir::DType::kFloat32}; }

ir::ValueId conv(ir::Graph& g, ir::ValueId x, int64_t out, const std::string& name) {
  const int64_t in = g.type(x).shape[1];
  ir::Attrs a{{"strides", std::vector<int64_t>{1, 1}},
              {"pads", std::vector<int64_t>{1, 1, 1, 1}},
              {"dilations", std::vector<int64_t>{1, 1}},
              {"groups", int64_t{1}}};
  return g.add_op(ir::OpKind::kConv2d, name, {x, g.add_constant(name + ".w", f32({out, in, 3, 3}))}, a).value();
}

// The fused operator whose anchor is named `name`.
size_t step(const ir::Graph& g, const std::vector<std::pair<ir::FusedOp, ir::Workload>>& fused,
            const std::string& name) {
  for (size_t i = 0; i < fused.size(); ++i)
    if (g.node(fused[i].first.anchor).name == name) return i;
  ADD_FAILURE() << "no step " << name;
  return 0;
}

// x -> a (conv) -> b (max pool) -> c (conv) -> d (conv) -> concat(a, d) -> e (relu): e reads a's
// output after b, c and d wrote theirs and c and d read their weights; and d's right after it.
TEST(InputReuse, AnInputIsReadAfterTheBytesTheStepsBetweenTouched) {
  ir::Graph g("reuse");
  const ir::ValueId x = g.add_input("x", f32({1, 8, 16, 16}));
  const ir::ValueId a = conv(g, x, 8, "a");  // 8 KiB out
  const ir::ValueId b = g.add_op(ir::OpKind::kMaxPool2d, "b", {a},
                                 {{"kernel", std::vector<int64_t>{1, 1}},
                                  {"strides", std::vector<int64_t>{1, 1}},
                                  {"pads", std::vector<int64_t>{0, 0, 0, 0}},
                                  {"dilations", std::vector<int64_t>{1, 1}},
                                  {"ceil_mode", int64_t{0}}})
                            .value();
  const ir::ValueId c = conv(g, b, 16, "c");
  const ir::ValueId d = conv(g, c, 8, "d");
  const ir::ValueId cat = g.add_op(ir::OpKind::kConcat, "cat", {a, d}, {{"axis", int64_t{1}}}).value();
  const ir::ValueId e = g.add_op(ir::OpKind::kRelu, "e", {cat}).value();
  g.mark_output(e);
  ASSERT_TRUE(g.validate().ok());
  auto fused = ir::fuse_graph(g);
  ASSERT_TRUE(fused.ok()) << fused.status().message();
  auto reuse = input_reuse(g, *fused);
  ASSERT_TRUE(reuse.ok()) << reuse.status().message();
  ASSERT_EQ(reuse->size(), fused->size());

  const double act8 = 8 * 16 * 16 * 4, act16 = 16 * 16 * 16 * 4;
  const double w_c = 16 * 8 * 9 * 4, w_d = 8 * 16 * 9 * 4;
  // The first step reads the graph's input: not an activation a step wrote.
  EXPECT_TRUE((*reuse)[step(g, *fused, "a")].empty());
  // b reads a's output right after it was written.
  ASSERT_EQ((*reuse)[step(g, *fused, "b")].size(), 1u);
  EXPECT_EQ((*reuse)[step(g, *fused, "b")][0].bytes, act8);
  EXPECT_EQ((*reuse)[step(g, *fused, "b")][0].distance, 0);
  // c reads b's output (after nothing), d reads c's.
  EXPECT_EQ((*reuse)[step(g, *fused, "d")][0].bytes, act16);
  EXPECT_EQ((*reuse)[step(g, *fused, "d")][0].distance, 0);
  // e reads the concat, traced to its writers: a's part after b, c, d wrote and c, d read weights;
  // d's part right after d.
  const auto& e_in = (*reuse)[step(g, *fused, "e")];
  ASSERT_EQ(e_in.size(), 2u);
  EXPECT_EQ(e_in[0].bytes, act8);
  EXPECT_EQ(e_in[0].distance, act8 + act16 + w_c + act8 + w_d);
  EXPECT_EQ(e_in[1].bytes, act8);
  EXPECT_EQ(e_in[1].distance, 0);

  // Only the inputs read after more bytes than the cache holds come from memory.
  EXPECT_DOUBLE_EQ(cold_input_seconds(e_in, 1024, 10), act8 / 10e9);
  EXPECT_DOUBLE_EQ(cold_input_seconds(e_in, 1e6, 10), 0);
  EXPECT_EQ(cold_input_seconds(e_in, 0, 10), 0) << "an unknown cache size counts nothing";
  EXPECT_EQ(cold_input_seconds(e_in, 1024, 0), 0) << "nor an unknown bandwidth";
}

}  // namespace
}  // namespace tensorperf::costmodel
