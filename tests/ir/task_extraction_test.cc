#include "ir/task_extraction.h"

#include <gtest/gtest.h>

namespace tensorperf::ir {
namespace {

TensorType f32(Shape s) { return TensorType{std::move(s), DType::kFloat32}; }

class Builder {
 public:
  Graph g{"test"};
  int n = 0;
  ValueId conv(ValueId x, int64_t out, int64_t k, int64_t stride, bool bias = false) {
    int64_t in = g.type(x).shape[1];
    std::vector<ValueId> ins{x, g.add_constant(name("w"), f32({out, in, k, k}))};
    if (bias) ins.push_back(g.add_constant(name("b"), f32({out})));
    Attrs a{{"strides", std::vector<int64_t>{stride, stride}}, {"pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2}},
            {"dilations", std::vector<int64_t>{1, 1}}, {"groups", int64_t{1}}};
    return g.add_op(OpKind::kConv2d, name("conv"), ins, a).value();
  }
  ValueId bn(ValueId x) {
    int64_t c = g.type(x).shape[1];
    std::vector<ValueId> ins{x};
    for (int i = 0; i < 4; ++i) ins.push_back(g.add_constant(name("bnp"), f32({c})));
    return g.add_op(OpKind::kBatchNorm, name("bn"), ins, {{"epsilon", 1e-5}}).value();
  }
  ValueId op(OpKind k, std::vector<ValueId> ins, Attrs a = {}) { return g.add_op(k, name("op"), ins, a).value(); }
  std::string name(const char* p) { return std::string(p) + std::to_string(n++); }
};

const Task* find(const std::vector<Task>& tasks, OpKind op, const std::vector<std::string>& ep) {
  for (const auto& t : tasks)
    if (t.workload.op == op && t.workload.epilogue == ep) return &t;
  return nullptr;
}

TEST(TaskExtraction, ResidualBlockFusion) {
  Builder b;
  ValueId x = b.g.add_input("x", f32({1, 16, 8, 8}));
  ValueId h = b.op(OpKind::kRelu, {b.bn(b.conv(x, 32, 3, 2))});
  h = b.bn(b.conv(h, 32, 3, 1));
  ValueId ds = b.bn(b.conv(x, 32, 1, 2));  // traced after the main branch, as torchvision does
  ValueId y = b.op(OpKind::kRelu, {b.op(OpKind::kAdd, {h, ds})});
  ValueId p = b.op(OpKind::kGlobalAvgPool2d, {y});
  ValueId f = b.op(OpKind::kFlatten, {p});
  ValueId fc = b.g.add_op(OpKind::kDense, "fc", {f, b.g.add_constant("fcw", f32({10, 32})), b.g.add_constant("fcb", f32({10}))}).value();
  b.g.mark_output(fc);
  ASSERT_TRUE(b.g.validate().ok());

  auto tasks = extract_tasks(b.g);
  ASSERT_TRUE(tasks.ok()) << tasks.status().message();
  ASSERT_EQ(tasks->size(), 5u);  // conv+bias+relu, conv+bias+add+relu, conv+bias, pool, dense+bias
  const Task* main = find(*tasks, OpKind::kConv2d, {"bias", "add", "relu"});
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(main->instances[0].fused.size(), 3u);  // bn, add, relu
  EXPECT_NE(find(*tasks, OpKind::kConv2d, {"bias", "relu"}), nullptr);
  const Task* down = find(*tasks, OpKind::kConv2d, {"bias"});
  ASSERT_NE(down, nullptr);
  EXPECT_EQ(down->workload.inputs[1], f32({32, 16, 1, 1}));
  EXPECT_NE(find(*tasks, OpKind::kGlobalAvgPool2d, {}), nullptr);
  EXPECT_NE(find(*tasks, OpKind::kDense, {"bias"}), nullptr);
  for (const auto& t : *tasks) EXPECT_NE(t.workload.op, OpKind::kFlatten);

  // Execution order: the downsample conv precedes the fused op that reads its output.
  auto fused = fuse_graph(b.g);
  ASSERT_TRUE(fused.ok());
  size_t pos_main = 0, pos_down = 0;
  for (size_t i = 0; i < fused->size(); ++i) {
    if ((*fused)[i].second.epilogue == std::vector<std::string>{"bias", "add", "relu"}) pos_main = i;
    if ((*fused)[i].second.epilogue == std::vector<std::string>{"bias"} && (*fused)[i].second.op == OpKind::kConv2d) pos_down = i;
  }
  EXPECT_LT(pos_down, pos_main);
}

TEST(TaskExtraction, ConvBiasAsInputEqualsFoldedBatchNorm) {
  // The ONNX form (conv with a bias input, then relu) and the zoo form (conv, batch_norm, relu)
  // give the same workload key.
  Builder a, b;
  ValueId xa = a.g.add_input("x", f32({1, 8, 16, 16}));
  a.g.mark_output(a.op(OpKind::kRelu, {a.conv(xa, 8, 3, 1, /*bias=*/true)}));
  ValueId xb = b.g.add_input("x", f32({1, 8, 16, 16}));
  b.g.mark_output(b.op(OpKind::kRelu, {b.bn(b.conv(xb, 8, 3, 1))}));
  auto ta = extract_tasks(a.g), tb = extract_tasks(b.g);
  ASSERT_TRUE(ta.ok() && tb.ok());
  ASSERT_EQ(ta->size(), 1u);
  ASSERT_EQ(tb->size(), 1u);
  EXPECT_EQ((*ta)[0].workload.key(), (*tb)[0].workload.key());
}

TEST(TaskExtraction, CountsRepeatsAndStopsAtSharedValues) {
  Builder b;
  ValueId x = b.g.add_input("x", f32({1, 8, 8, 8}));
  ValueId c1 = b.conv(x, 8, 3, 1);
  // c1 has two consumers: nothing fuses into it; the relus are standalone workloads.
  ValueId r1 = b.op(OpKind::kRelu, {c1});
  ValueId r2 = b.op(OpKind::kSigmoid, {c1});
  ValueId c2 = b.conv(r1, 8, 3, 1);
  ValueId c3 = b.conv(r2, 8, 3, 1);
  ValueId cat = b.op(OpKind::kConcat, {c2, c3}, {{"axis", int64_t{1}}});
  b.g.mark_output(cat);
  auto tasks = extract_tasks(b.g);
  ASSERT_TRUE(tasks.ok());
  const Task* conv = find(*tasks, OpKind::kConv2d, {});
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->count, 3);
  EXPECT_NE(find(*tasks, OpKind::kRelu, {}), nullptr);
  EXPECT_NE(find(*tasks, OpKind::kSigmoid, {}), nullptr);
  EXPECT_EQ(tasks->size(), 3u);  // concat is layout
  double total = 0;
  for (const auto& t : *tasks) total += t.total_flops();
  EXPECT_DOUBLE_EQ(total, 3 * 2.0 * 8 * 64 * 8 * 9 + 2 * 8 * 64);
}

TEST(TaskExtraction, GraphOutputIsNotFusedThrough) {
  Builder b;
  ValueId x = b.g.add_input("x", f32({1, 4, 4, 4}));
  ValueId c = b.conv(x, 4, 1, 1);
  ValueId r = b.op(OpKind::kRelu, {c});
  b.g.mark_output(c);  // c must be materialised
  b.g.mark_output(r);
  auto tasks = extract_tasks(b.g);
  ASSERT_TRUE(tasks.ok());
  EXPECT_EQ(tasks->size(), 2u);
}

TEST(TaskExtraction, DenseBiasAddAndGelu) {
  Builder b;
  ValueId x = b.g.add_input("x", f32({1, 128, 768}));
  ValueId d = b.op(OpKind::kDense, {x, b.g.add_constant("w", f32({3072, 768}))});
  ValueId biased = b.op(OpKind::kAdd, {d, b.g.add_constant("bias", f32({3072}))});
  ValueId g = b.op(OpKind::kGelu, {biased});
  b.g.mark_output(g);
  auto tasks = extract_tasks(b.g);
  ASSERT_TRUE(tasks.ok());
  ASSERT_EQ(tasks->size(), 1u);
  EXPECT_EQ((*tasks)[0].workload.epilogue, (std::vector<std::string>{"bias", "gelu"}));
  EXPECT_DOUBLE_EQ((*tasks)[0].workload.flops(), 2.0 * 128 * 3072 * 768);
  EXPECT_DOUBLE_EQ((*tasks)[0].workload.epilogue_flops(), 2.0 * 128 * 3072);
}

}  // namespace
}  // namespace tensorperf::ir
