// VGG-16 (configuration D, no batch norm) as torchvision 0.14 defines it (torchvision/models/vgg.py):
// 13 3x3 convs with bias and relu, 5 max pools, AdaptiveAvgPool2d(7), three Linear layers. At 224 the
// adaptive pool sees a 7x7 map and is the identity, so it is left out; at other sizes whose map is a
// multiple of 7 it is the equivalent uniform avg_pool2d. Dropout omitted.
#include <string>

#include "ir/models/builder.h"
#include "ir/models/networks.h"

namespace tensorperf::ir::models {

Result<Graph> build_vgg16(const ModelOptions& options) {
  TP_ASSIGN_OR_RETURN(const int64_t size, checked_image_size(options, 224, 224, "vgg16"));
  const int64_t feature_size = size / 32;
  if (size % 32 != 0 || feature_size % 7 != 0) {
    return Status::InvalidArgument(
        "vgg16: image size must make a feature map that is a multiple of 7 (size "
        "a multiple of 224, such as 224 or 448), got " +
        std::to_string(size));
  }
  constexpr int64_t kPool = 0;  // "M" in torchvision's cfgs["D"]
  constexpr int64_t kConfig[] = {64,    64,  kPool, 128, 128,   kPool, 256, 256, 256,
                                 kPool, 512, 512,   512, kPool, 512,   512, 512, kPool};
  ModelBuilder b("vgg16");
  ValueId x = b.input("input", {options.batch, 3, size, size});
  {
    Scope features(b, "features");
    int index = 0;
    for (int64_t channels : kConfig) {
      if (channels == kPool) {
        x = b.max_pool(std::to_string(index++), x, 2, 2);
        continue;
      }
      ConvSpec spec = conv_spec(channels, 3, 1, 1);
      spec.bias = true;
      x = b.conv(std::to_string(index++), x, spec);
      x = b.relu(std::to_string(index++), x);
    }
  }
  if (feature_size != 7) {
    const int64_t window = feature_size / 7;
    x = b.avg_pool("avgpool", x, window, window, {0, 0, 0, 0}, /*count_include_pad=*/true);
  }
  x = b.flatten("flatten", x);
  {
    Scope classifier(b, "classifier");
    x = b.relu("1", b.dense("0", x, 4096));
    x = b.relu("4", b.dense("3", x, 4096));
    x = b.dense("6", x, 1000);
  }
  return b.finish({x});
}

}  // namespace tensorperf::ir::models
