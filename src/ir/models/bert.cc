// BERT-base encoder as Hugging Face's BertModel defines it (transformers' modeling_bert.py,
// bert-base-uncased config): 12 layers, hidden 768, 12 heads of 64, intermediate 3072, GELU,
// LayerNorm eps 1e-12. The graph input is the embeddings' output [batch, seq_len, 768] (word,
// position and token-type lookups and their LayerNorm are left out: gathers, not kernels we tune);
// the output is the last hidden state [batch, seq_len, 768] (no pooler). No attention mask (all
// tokens attend), dropout omitted.
#include <string>

#include "ir/models/builder.h"
#include "ir/models/networks.h"

namespace tensorperf::ir::models {
namespace {

constexpr int64_t kHidden = 768;
constexpr int64_t kHeads = 12;
constexpr int64_t kHeadSize = kHidden / kHeads;
constexpr int64_t kIntermediate = 3072;
constexpr int kLayers = 12;
constexpr double kLayerNormEpsilon = 1e-12;

ValueId layer_norm(ModelBuilder& b, const std::string& name, ValueId x) {
  return b.op(OpKind::kLayerNorm, name, {x, b.weight(name + ".weight", {kHidden}), b.weight(name + ".bias", {kHidden})},
              Attrs{{"axis", int64_t{-1}}, {"epsilon", kLayerNormEpsilon}});
}

// [B, S, 768] -> [B, 12, S, 64] (BertSelfAttention.transpose_for_scores).
ValueId to_heads(ModelBuilder& b, const std::string& name, ValueId x) {
  ValueId r =
      b.op(OpKind::kReshape, name + ".reshape", {x}, Attrs{{"shape", std::vector<int64_t>{0, 0, kHeads, kHeadSize}}});
  return b.op(OpKind::kTranspose, name + ".transpose", {r}, Attrs{{"perm", std::vector<int64_t>{0, 2, 1, 3}}});
}

ValueId batch_matmul(ModelBuilder& b, const std::string& name, ValueId a, ValueId c, bool transpose_b) {
  return b.op(OpKind::kBatchMatmul, name, {a, c},
              Attrs{{"transpose_a", int64_t{0}}, {"transpose_b", int64_t{transpose_b ? 1 : 0}}});
}

// BertLayer: self-attention + BertSelfOutput (dense, residual, LayerNorm), then BertIntermediate
// (dense, GELU) and BertOutput (dense, residual, LayerNorm).
ValueId bert_layer(ModelBuilder& b, ValueId x) {
  ValueId q = to_heads(b, "attention.self.query", b.dense("attention.self.query", x, kHidden));
  ValueId k = to_heads(b, "attention.self.key", b.dense("attention.self.key", x, kHidden));
  ValueId v = to_heads(b, "attention.self.value", b.dense("attention.self.value", x, kHidden));
  ValueId scores = batch_matmul(b, "attention.self.scores", q, k, /*transpose_b=*/true);
  scores = b.scale("attention.self.scale", scores);  // 1 / sqrt(64)
  ValueId probs = b.op(OpKind::kSoftmax, "attention.self.softmax", {scores}, Attrs{{"axis", int64_t{-1}}});
  ValueId context = batch_matmul(b, "attention.self.context", probs, v, false);
  context = b.op(OpKind::kTranspose, "attention.self.context.transpose", {context},
                 Attrs{{"perm", std::vector<int64_t>{0, 2, 1, 3}}});
  context = b.op(OpKind::kReshape, "attention.self.context.reshape", {context},
                 Attrs{{"shape", std::vector<int64_t>{0, 0, kHidden}}});
  ValueId attention = b.dense("attention.output.dense", context, kHidden);
  attention = layer_norm(b, "attention.output.LayerNorm", b.add("attention.output.add", attention, x));
  ValueId h = b.op(OpKind::kGelu, "intermediate.gelu", {b.dense("intermediate.dense", attention, kIntermediate)});
  h = b.dense("output.dense", h, kHidden);
  return layer_norm(b, "output.LayerNorm", b.add("output.add", h, attention));
}

}  // namespace

Result<Graph> build_bert_base(const ModelOptions& options) {
  TP_RETURN_IF_ERROR(check_batch(options, "bert_base"));
  if (options.seq_len < 1 || options.seq_len > 512) {
    return Status::InvalidArgument(
        "bert_base: sequence length must be 1 to 512 (BERT's position "
        "embeddings), got " +
        std::to_string(options.seq_len));
  }
  ModelBuilder b("bert_base");
  ValueId x = b.input("embeddings", {options.batch, options.seq_len, kHidden});
  for (int i = 0; i < kLayers; ++i) {
    Scope scope(b, "encoder.layer." + std::to_string(i));
    x = bert_layer(b, x);
  }
  return b.finish({x});
}

}  // namespace tensorperf::ir::models
