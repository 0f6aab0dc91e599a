// Inception-V3 as torchvision 0.14 defines it (torchvision/models/inception.py) in eval mode: no aux
// logits, transform_input=False, BatchNorm eps 0.001, avg pools F.avg_pool2d(3, 1, 1) counting pads.
// Inception-E's nested torch.cat calls are one 6-input concat, as the ONNX exporter emits them (the
// same tensor): 11 concat nodes in all. Dropout omitted. Standard input 299x299.
#include <array>
#include <string>
#include <vector>

#include "ir/models/builder.h"
#include "ir/models/networks.h"

namespace tensorperf::ir::models {
namespace {

constexpr double kEpsilon = 0.001;

// torchvision BasicConv2d: conv (no bias) -> BatchNorm2d(eps=0.001) -> relu.
ValueId basic_conv(ModelBuilder& b, const std::string& name, ValueId x, int64_t out, int64_t kernel, int64_t stride = 1,
                   int64_t pad = 0) {
  return b.conv_bn_relu(name, x, conv_spec(out, kernel, stride, pad), kEpsilon);
}

// A 1x7 (horizontal) or 7x1 (vertical) conv with "same" padding, and the 1x3 / 3x1 ones.
ValueId line_conv(ModelBuilder& b, const std::string& name, ValueId x, int64_t out, int64_t length, bool horizontal) {
  const int64_t pad = length / 2;
  ConvSpec spec{.out_channels = out};
  spec.kernel = horizontal ? std::array<int64_t, 2>{1, length} : std::array<int64_t, 2>{length, 1};
  spec.pads = horizontal ? std::array<int64_t, 4>{0, pad, 0, pad} : std::array<int64_t, 4>{pad, 0, pad, 0};
  return b.conv_bn_relu(name, x, spec, kEpsilon);
}

ValueId pool_branch(ModelBuilder& b, ValueId x, int64_t out) {
  ValueId p = b.avg_pool("avg_pool", x, 3, 1, {1, 1, 1, 1}, /*count_include_pad=*/true);
  return basic_conv(b, "branch_pool", p, out, 1);
}

ValueId inception_a(ModelBuilder& b, ValueId x, int64_t pool_features) {
  ValueId b1 = basic_conv(b, "branch1x1", x, 64, 1);
  ValueId b5 = basic_conv(b, "branch5x5_1", x, 48, 1);
  b5 = basic_conv(b, "branch5x5_2", b5, 64, 5, 1, 2);
  ValueId b3 = basic_conv(b, "branch3x3dbl_1", x, 64, 1);
  b3 = basic_conv(b, "branch3x3dbl_2", b3, 96, 3, 1, 1);
  b3 = basic_conv(b, "branch3x3dbl_3", b3, 96, 3, 1, 1);
  return b.concat("concat", {b1, b5, b3, pool_branch(b, x, pool_features)});
}

ValueId inception_b(ModelBuilder& b, ValueId x) {
  ValueId b3 = basic_conv(b, "branch3x3", x, 384, 3, 2);
  ValueId d = basic_conv(b, "branch3x3dbl_1", x, 64, 1);
  d = basic_conv(b, "branch3x3dbl_2", d, 96, 3, 1, 1);
  d = basic_conv(b, "branch3x3dbl_3", d, 96, 3, 2);
  return b.concat("concat", {b3, d, b.max_pool("max_pool", x, 3, 2)});
}

ValueId inception_c(ModelBuilder& b, ValueId x, int64_t c7) {
  ValueId b1 = basic_conv(b, "branch1x1", x, 192, 1);
  ValueId b7 = basic_conv(b, "branch7x7_1", x, c7, 1);
  b7 = line_conv(b, "branch7x7_2", b7, c7, 7, /*horizontal=*/true);
  b7 = line_conv(b, "branch7x7_3", b7, 192, 7, false);
  ValueId d = basic_conv(b, "branch7x7dbl_1", x, c7, 1);
  d = line_conv(b, "branch7x7dbl_2", d, c7, 7, false);
  d = line_conv(b, "branch7x7dbl_3", d, c7, 7, true);
  d = line_conv(b, "branch7x7dbl_4", d, c7, 7, false);
  d = line_conv(b, "branch7x7dbl_5", d, 192, 7, true);
  return b.concat("concat", {b1, b7, d, pool_branch(b, x, 192)});
}

ValueId inception_d(ModelBuilder& b, ValueId x) {
  ValueId b3 = basic_conv(b, "branch3x3_1", x, 192, 1);
  b3 = basic_conv(b, "branch3x3_2", b3, 320, 3, 2);
  ValueId b7 = basic_conv(b, "branch7x7x3_1", x, 192, 1);
  b7 = line_conv(b, "branch7x7x3_2", b7, 192, 7, true);
  b7 = line_conv(b, "branch7x7x3_3", b7, 192, 7, false);
  b7 = basic_conv(b, "branch7x7x3_4", b7, 192, 3, 2);
  return b.concat("concat", {b3, b7, b.max_pool("max_pool", x, 3, 2)});
}

ValueId inception_e(ModelBuilder& b, ValueId x) {
  ValueId b1 = basic_conv(b, "branch1x1", x, 320, 1);
  ValueId b3 = basic_conv(b, "branch3x3_1", x, 384, 1);
  ValueId b3a = line_conv(b, "branch3x3_2a", b3, 384, 3, true);
  ValueId b3b = line_conv(b, "branch3x3_2b", b3, 384, 3, false);
  ValueId d = basic_conv(b, "branch3x3dbl_1", x, 448, 1);
  d = basic_conv(b, "branch3x3dbl_2", d, 384, 3, 1, 1);
  ValueId da = line_conv(b, "branch3x3dbl_3a", d, 384, 3, true);
  ValueId db = line_conv(b, "branch3x3dbl_3b", d, 384, 3, false);
  return b.concat("concat", {b1, b3a, b3b, da, db, pool_branch(b, x, 192)});
}

}  // namespace

Result<Graph> build_inception_v3(const ModelOptions& options) {
  TP_ASSIGN_OR_RETURN(const int64_t size, checked_image_size(options, 299, 75, "inception_v3"));
  ModelBuilder b("inception_v3");
  ValueId x = b.input("input", {options.batch, 3, size, size});
  x = basic_conv(b, "Conv2d_1a_3x3", x, 32, 3, 2);
  x = basic_conv(b, "Conv2d_2a_3x3", x, 32, 3);
  x = basic_conv(b, "Conv2d_2b_3x3", x, 64, 3, 1, 1);
  x = b.max_pool("maxpool1", x, 3, 2);
  x = basic_conv(b, "Conv2d_3b_1x1", x, 80, 1);
  x = basic_conv(b, "Conv2d_4a_3x3", x, 192, 3);
  x = b.max_pool("maxpool2", x, 3, 2);
  auto block = [&](const std::string& name, auto&& fn) {
    Scope scope(b, name);
    x = fn();
  };
  block("Mixed_5b", [&] { return inception_a(b, x, 32); });
  block("Mixed_5c", [&] { return inception_a(b, x, 64); });
  block("Mixed_5d", [&] { return inception_a(b, x, 64); });
  block("Mixed_6a", [&] { return inception_b(b, x); });
  block("Mixed_6b", [&] { return inception_c(b, x, 128); });
  block("Mixed_6c", [&] { return inception_c(b, x, 160); });
  block("Mixed_6d", [&] { return inception_c(b, x, 160); });
  block("Mixed_6e", [&] { return inception_c(b, x, 192); });
  block("Mixed_7a", [&] { return inception_d(b, x); });
  block("Mixed_7b", [&] { return inception_e(b, x); });
  block("Mixed_7c", [&] { return inception_e(b, x); });
  x = b.flatten("flatten", b.global_avg_pool("avgpool", x));
  return b.finish({b.dense("fc", x, 1000)});
}

}  // namespace tensorperf::ir::models
