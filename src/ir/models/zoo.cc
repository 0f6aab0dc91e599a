// The zoo's one registry table: name, description, build function.
#include "ir/models/zoo.h"

#include "ir/models/networks.h"

namespace tensorperf::ir {
namespace {

struct ZooEntry {
  ModelInfo info;
  Result<Graph> (*build)(const ModelOptions&);
};

const std::vector<ZooEntry>& zoo_table() {
  static const std::vector<ZooEntry> table = {
      {{"resnet18", "ResNet-18, torchvision 0.14 definition, 224x224"}, models::build_resnet18},
      {{"resnet50", "ResNet-50 (v1.5), torchvision 0.14 definition, 224x224"}, models::build_resnet50},
      {{"vgg16", "VGG-16 (configuration D, no BN), torchvision 0.14 definition, 224x224"}, models::build_vgg16},
      {{"inception_v3", "Inception-V3, torchvision 0.14 definition (eval, no aux logits), 299x299"},
       models::build_inception_v3},
      {{"squeezenet1_1", "SqueezeNet 1.1, torchvision 0.14 definition, 224x224"}, models::build_squeezenet1_1},
      {{"mobilenet_v2", "MobileNet-V2 (width 1.0), torchvision 0.14 definition, 224x224"}, models::build_mobilenet_v2},
      {{"nasnet_a_mobile", "NASNet-A Mobile (4@1056), Cadene's pretrainedmodels port of the TF-slim model, 224x224"},
       models::build_nasnet_a_mobile},
      {{"randwire", "RandWire-WS small regime, WS(4, 0.75), N=32, C=78 (Xie et al. 2019), seeded, 224x224"},
       models::build_randwire},
      {{"bert_base", "BERT-base encoder (Hugging Face BertModel): input [batch, seq_len, 768] embeddings"},
       models::build_bert_base},
  };
  return table;
}

}  // namespace

const std::vector<ModelInfo>& zoo_models() {
  static const std::vector<ModelInfo> infos = [] {
    std::vector<ModelInfo> out;
    for (const ZooEntry& e : zoo_table()) out.push_back(e.info);
    return out;
  }();
  return infos;
}

Result<Graph> build_model(const std::string& name, const ModelOptions& options) {
  std::string known;
  for (const ZooEntry& e : zoo_table()) {
    if (e.info.name == name) return e.build(options);
    known += (known.empty() ? "" : ", ") + e.info.name;
  }
  return Status::NotFound("unknown model '" + name + "'; the zoo has: " + known);
}

}  // namespace tensorperf::ir
