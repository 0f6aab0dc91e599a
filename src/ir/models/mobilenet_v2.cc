// MobileNet-V2 (width 1.0) as torchvision 0.14 defines it (torchvision/models/mobilenetv2.py):
// inverted residual blocks (1x1 expand -> 3x3 depthwise -> 1x1 linear projection, ReLU6, residual add
// when stride 1 and channels match), a 1280-channel 1x1 conv, global pool, Linear. Dropout omitted.
#include <string>

#include "ir/models/builder.h"
#include "ir/models/networks.h"

namespace tensorperf::ir::models {
namespace {

ValueId inverted_residual(ModelBuilder& b, ValueId x, int64_t out, int64_t stride, int64_t expand_ratio) {
  const int64_t in = b.channels(x);
  const int64_t hidden = in * expand_ratio;
  ValueId h = x;
  if (expand_ratio != 1) h = b.conv_bn_relu6("expand", h, conv_spec(hidden, 1));
  ConvSpec depthwise = conv_spec(hidden, 3, stride, 1);
  depthwise.groups = hidden;
  h = b.conv_bn_relu6("depthwise", h, depthwise);
  h = b.conv_bn("project", h, conv_spec(out, 1));
  if (stride == 1 && in == out) return b.add("add", x, h);
  return h;
}

}  // namespace

Result<Graph> build_mobilenet_v2(const ModelOptions& options) {
  TP_ASSIGN_OR_RETURN(const int64_t size, checked_image_size(options, 224, 32, "mobilenet_v2"));
  // (expand ratio t, output channels c, repeats n, first stride s): the paper's Table 2.
  struct Stage {
    int64_t t, c, n, s;
  };
  constexpr Stage kStages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                               {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  ModelBuilder b("mobilenet_v2");
  ValueId x = b.input("input", {options.batch, 3, size, size});
  int index = 0;
  {
    Scope features(b, "features");
    x = b.conv_bn_relu6(std::to_string(index++), x, conv_spec(32, 3, 2, 1));
    for (const Stage& stage : kStages) {
      for (int64_t i = 0; i < stage.n; ++i) {
        Scope block(b, std::to_string(index++));
        x = inverted_residual(b, x, stage.c, i == 0 ? stage.s : 1, stage.t);
      }
    }
    x = b.conv_bn_relu6(std::to_string(index++), x, conv_spec(1280, 1));
  }
  x = b.flatten("flatten", b.global_avg_pool("avgpool", x));
  return b.finish({b.dense("classifier.1", x, 1000)});
}

}  // namespace tensorperf::ir::models
