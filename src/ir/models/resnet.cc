// ResNet-18 and ResNet-50 as torchvision 0.14 defines them (torchvision/models/resnet.py): ResNet v1.5,
// the stride of a bottleneck on its 3x3 conv, 1x1 conv + BN downsample shortcuts.
#include <array>
#include <string>

#include "ir/models/builder.h"
#include "ir/models/networks.h"

namespace tensorperf::ir::models {
namespace {

// torchvision BasicBlock: conv3x3 -> bn -> relu -> conv3x3 -> bn, + shortcut, relu.
ValueId basic_block(ModelBuilder& b, ValueId x, int64_t planes, int64_t stride) {
  ValueId out = b.conv_bn_relu("conv1", x, conv_spec(planes, 3, stride, 1));
  out = b.conv_bn("conv2", out, conv_spec(planes, 3, 1, 1));
  ValueId identity = x;
  if (stride != 1 || b.channels(x) != planes) identity = b.conv_bn("downsample", x, conv_spec(planes, 1, stride));
  return b.relu("relu", b.add("add", out, identity));
}

// torchvision Bottleneck (expansion 4): 1x1 -> 3x3 (stride) -> 1x1, + shortcut, relu.
ValueId bottleneck(ModelBuilder& b, ValueId x, int64_t planes, int64_t stride) {
  ValueId out = b.conv_bn_relu("conv1", x, conv_spec(planes, 1));
  out = b.conv_bn_relu("conv2", out, conv_spec(planes, 3, stride, 1));
  out = b.conv_bn("conv3", out, conv_spec(planes * 4, 1));
  ValueId identity = x;
  if (stride != 1 || b.channels(x) != planes * 4) {
    identity = b.conv_bn("downsample", x, conv_spec(planes * 4, 1, stride));
  }
  return b.relu("relu", b.add("add", out, identity));
}

using BlockFn = ValueId (*)(ModelBuilder&, ValueId, int64_t, int64_t);

Result<Graph> build_resnet(const std::string& name, BlockFn block, const std::array<int, 4>& layers,
                           const ModelOptions& options) {
  TP_ASSIGN_OR_RETURN(const int64_t size, checked_image_size(options, 224, 32, name));
  ModelBuilder b(name);
  ValueId x = b.input("input", {options.batch, 3, size, size});
  x = b.conv_bn_relu("stem", x, conv_spec(64, 7, 2, 3));
  x = b.max_pool("maxpool", x, 3, 2, {1, 1, 1, 1});
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t planes = int64_t{64} << stage;
    for (int i = 0; i < layers[stage]; ++i) {
      Scope scope(b, "layer" + std::to_string(stage + 1) + "." + std::to_string(i));
      x = block(b, x, planes, stage > 0 && i == 0 ? 2 : 1);
    }
  }
  x = b.flatten("flatten", b.global_avg_pool("avgpool", x));
  return b.finish({b.dense("fc", x, 1000)});
}

}  // namespace

Result<Graph> build_resnet18(const ModelOptions& options) {
  return build_resnet("resnet18", basic_block, {2, 2, 2, 2}, options);
}

Result<Graph> build_resnet50(const ModelOptions& options) {
  return build_resnet("resnet50", bottleneck, {3, 4, 6, 3}, options);
}

}  // namespace tensorperf::ir::models
