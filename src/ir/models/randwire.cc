// RandWire-WS, small regime (Xie et al., "Exploring Randomly Wired Neural Networks for Image
// Recognition", ICCV 2019, Table 1): WS(K=4, P=0.75) random graphs of N=32 nodes, C=78.
//   conv1  3x3 conv, stride 2, C/2 channels, BN                     112x112
//   conv2  ReLU, 3x3 conv, stride 2, C channels, BN                  56x56
//   conv3  random graph, C channels                                  28x28
//   conv4  random graph, 2C channels                                 14x14
//   conv5  random graph, 4C channels                                 7x7
//   classifier  ReLU, 1x1 conv 1280, BN, ReLU, global avg pool, fc 1000
// A stage's undirected WS graph becomes a DAG by node index (u -> v for u < v). Each node sums its
// inputs with add nodes (the paper's learned per-edge scalars sigmoid(w) are left out: elementwise
// scalings that change no conv workload), then ReLU -> separable 3x3 conv (depthwise, pointwise) -> BN. Nodes
// without predecessors read the stage input with stride 2; the stage output is the mean of the
// nodes without successors. Stage i (0, 1, 2) draws its graph with seed options.seed * 3 + i.
#include <string>
#include <utility>
#include <vector>

#include "ir/models/builder.h"
#include "ir/models/networks.h"
#include "ir/models/watts_strogatz.h"

namespace tensorperf::ir::models {
namespace {

constexpr int kNodes = 32;
constexpr int kNeighbours = 4;
constexpr double kRewireProbability = 0.75;
constexpr int64_t kChannels = 78;

// ReLU -> depthwise 3x3 (stride) -> pointwise 1x1 -> BN.
ValueId node_op(ModelBuilder& b, ValueId x, int64_t out_channels, int64_t stride) {
  x = b.relu("relu", x);
  ConvSpec depthwise = conv_spec(b.channels(x), 3, stride, 1);
  depthwise.groups = b.channels(x);
  x = b.conv("depthwise", x, depthwise);
  return b.conv_bn("pointwise", x, conv_spec(out_channels, 1));
}

ValueId random_stage(ModelBuilder& b, ValueId x, int64_t out_channels, uint64_t seed) {
  const std::vector<std::pair<int, int>> edges = watts_strogatz_edges(kNodes, kNeighbours, kRewireProbability, seed);
  std::vector<std::vector<int>> predecessors(kNodes);
  std::vector<bool> has_successor(kNodes, false);
  for (const auto& [u, v] : edges) {
    predecessors[v].push_back(u);
    has_successor[u] = true;
  }
  std::vector<ValueId> out(kNodes, kNoValue);
  std::vector<ValueId> sinks;
  for (int v = 0; v < kNodes; ++v) {
    Scope scope(b, "node" + std::to_string(v));
    if (predecessors[v].empty()) {
      out[v] = node_op(b, x, out_channels, 2);
    } else {
      std::vector<ValueId> inputs;
      for (int u : predecessors[v]) inputs.push_back(out[u]);
      out[v] = node_op(b, b.sum("sum", inputs), out_channels, 1);
    }
    if (!has_successor[v]) sinks.push_back(out[v]);
  }
  ValueId y = b.sum("output.sum", sinks);
  return sinks.size() > 1 ? b.scale("output.mean", y) : y;
}

}  // namespace

Result<Graph> build_randwire(const ModelOptions& options) {
  TP_ASSIGN_OR_RETURN(const int64_t size, checked_image_size(options, 224, 32, "randwire"));
  ModelBuilder b("randwire");
  ValueId x = b.input("input", {options.batch, 3, size, size});
  x = b.conv_bn("conv1", x, conv_spec(kChannels / 2, 3, 2, 1));
  x = b.conv_bn("conv2", b.relu("conv2.relu", x), conv_spec(kChannels, 3, 2, 1));
  for (int stage = 0; stage < 3; ++stage) {
    Scope scope(b, "conv" + std::to_string(stage + 3));
    x = random_stage(b, x, kChannels << stage, options.seed * 3 + static_cast<uint64_t>(stage));
  }
  {
    Scope scope(b, "classifier");
    x = b.conv_bn_relu("conv", b.relu("relu", x), conv_spec(1280, 1));
    x = b.flatten("flatten", b.global_avg_pool("avgpool", x));
    x = b.dense("fc", x, 1000);
  }
  return b.finish({x});
}

}  // namespace tensorperf::ir::models
