#include <gtest/gtest.h>

#include "ir/models/zoo.h"
#include "model_test_util.h"

namespace tensorperf::ir {
namespace {

using models::testing::anchor_macs;
using models::testing::count_nodes;

// Per layer: Q, K, V and output projections (4 S 768^2), FFN (2 S 768 3072), QK^T and PV (2 S^2 768).
double bert_base_macs(double batch, double seq) {
  return batch * 12 * (4 * seq * 768 * 768 + 2 * seq * 768 * 3072 + 2 * seq * seq * 768);
}

TEST(BertTest, MacsFollowTheEncoderFormula) {
  for (int64_t seq : {128, 64, 384}) {
    Result<Graph> g = build_model("bert_base", {.batch = 2, .seq_len = seq});
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    EXPECT_EQ(anchor_macs(*g), bert_base_macs(2, static_cast<double>(seq))) << "seq_len " << seq;
    EXPECT_EQ(g->type(g->outputs()[0]).shape, (Shape{2, seq, 768}));
  }
  Result<Graph> g = build_model("bert_base");
  ASSERT_TRUE(g.ok());
  EXPECT_NEAR(anchor_macs(*g) / 1e9, 11.17, 0.01);  // batch 1, seq_len 128
}

TEST(BertTest, TwelveLayersOfAttentionAndFeedForward) {
  Result<Graph> g = build_model("bert_base");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(count_nodes(*g, OpKind::kDense), 12 * 6);
  EXPECT_EQ(count_nodes(*g, OpKind::kBatchMatmul), 12 * 2);
  EXPECT_EQ(count_nodes(*g, OpKind::kSoftmax), 12);
  EXPECT_EQ(count_nodes(*g, OpKind::kLayerNorm), 12 * 2);
  EXPECT_EQ(count_nodes(*g, OpKind::kGelu), 12);
  for (const Node& n : g->nodes()) {
    if (n.op != OpKind::kBatchMatmul) continue;
    const Shape& a = g->type(n.inputs[0]).shape;
    EXPECT_EQ(a, (Shape{1, 12, 128, a[3]})) << n.name;  // heads split out: [B, 12, S, 64 or S]
  }
}

TEST(BertTest, SequenceLengthOutsideOneTo512IsInvalidArgument) {
  for (int64_t seq : {0, 513}) {
    Result<Graph> g = build_model("bert_base", {.seq_len = seq});
    ASSERT_FALSE(g.ok()) << seq;
    EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace tensorperf::ir
