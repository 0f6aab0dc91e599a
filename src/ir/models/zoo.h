// The built-in model zoo: standard networks built in C++, architecturally identical to their
// reference definitions (torchvision for the CNNs, the original papers for NASNet-A and RandWire,
// Hugging Face's BertModel for BERT). Weights are shape-only constants.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "ir/graph.h"

namespace tensorperf::ir {

struct ModelOptions {
  int64_t batch = 1;
  int64_t image_size = 0;  // 0: the model's standard size (224, 299 for inception_v3, 224 nasnet)
  int64_t seq_len = 128;   // bert_base only
  uint64_t seed = 0;       // randwire only: the Watts–Strogatz graph seed
};

struct ModelInfo {
  std::string name;
  std::string description;  // one line: source definition, input size
};

// Every zoo model, in a stable order.
const std::vector<ModelInfo>& zoo_models();
// Builds `name` (as listed by zoo_models). NotFound names the known models.
Result<Graph> build_model(const std::string& name, const ModelOptions& options = {});

}  // namespace tensorperf::ir
