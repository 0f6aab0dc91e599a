// NASNet-A Mobile (4 @ 1056; Zoph et al., "Learning Transferable Architectures for Scalable Image
// Recognition", CVPR 2018) as the widely used PyTorch port defines it: Cadene's pretrainedmodels
// nasnetamobile (pretrainedmodels/models/nasnet_mobile.py, itself a port of TF-slim's nasnet.py):
// stem conv, two stem cells, 3 x (first normal cell + 3 normal cells) separated by two reduction
// cells, ReLU, average pool, Linear 1056 -> 1000. Filters 44; BatchNorm eps 0.001; dropout omitted.
//
// Where the port zero-pads by one row and column on the top-left, runs a stride-2 conv or pool and
// slices the first row and column off again (MaxPoolPad, AvgPoolPad, BranchSeparablesReduction,
// BranchSeparables(name='specific')), the same numbers come from that conv or pool with asymmetric
// pads [p+1-s, p+1-s, p, p] (TensorFlow's SAME padding), which is what the graph holds. The
// factorized reduction's avg_pool(1, stride 2) + 1x1 conv is the 1x1 conv with stride 2, and its
// shifted path (pad right/bottom, drop the first row and column) a slice [1:, 1:] then that conv
// with pads [0, 0, 1, 1]. The final AvgPool2d(7) on the 7x7 map is global_avg_pool2d, so other
// image sizes build too (those the port's reduction cells accept).
#include <array>
#include <cstdint>
#include <string>

#include "ir/models/builder.h"
#include "ir/models/networks.h"

namespace tensorperf::ir::models {
namespace {

constexpr double kEpsilon = 0.001;
constexpr int64_t kStemFilters = 32;
constexpr int64_t kFilters = 1056 / 24;  // penultimate filters / 24

// How a stride-2 branch pads: like torch's symmetric padding (cell_stem_0) or like the port's
// zero-pad-and-slice (TensorFlow SAME; the other cells).
enum class Padding { kSymmetric, kSame };

std::array<int64_t, 4> pads(int64_t kernel, int64_t stride, Padding padding) {
  const int64_t p = kernel / 2;
  if (padding == Padding::kSymmetric || stride == 1) return {p, p, p, p};
  return {p + 1 - stride, p + 1 - stride, p, p};
}

ValueId separable_conv(ModelBuilder& b, const std::string& name, ValueId x, int64_t out, int64_t kernel, int64_t stride,
                       std::array<int64_t, 4> conv_pads) {
  const int64_t in = b.channels(x);
  ConvSpec depthwise{
      .out_channels = in, .kernel = {kernel, kernel}, .stride = {stride, stride}, .pads = conv_pads, .groups = in};
  x = b.conv(name + ".depthwise_conv2d", x, depthwise);
  return b.conv(name + ".pointwise_conv2d", x, conv_spec(out, 1));
}

// BranchSeparables / BranchSeparablesStem: relu -> separable (stride) -> bn -> relu -> separable -> bn.
ValueId branch_separables(ModelBuilder& b, const std::string& name, ValueId x, int64_t out, int64_t kernel,
                          int64_t stride, Padding padding) {
  Scope scope(b, name);
  x = b.relu("relu", x);
  x = separable_conv(b, "separable_1", x, out, kernel, stride, pads(kernel, stride, padding));
  x = b.relu("relu1", b.batch_norm("bn_sep_1", x, kEpsilon));
  x = separable_conv(b, "separable_2", x, out, kernel, 1, pads(kernel, 1, padding));
  return b.batch_norm("bn_sep_2", x, kEpsilon);
}

// relu -> 1x1 conv -> bn: every cell's input projection.
ValueId relu_conv_bn(ModelBuilder& b, const std::string& name, ValueId x, int64_t out) {
  Scope scope(b, name);
  return b.batch_norm("bn", b.conv("conv", b.relu("relu", x), conv_spec(out, 1)), kEpsilon);
}

// The factorized reduction of the previous cell's output to half its size: relu, then two strided
// 1x1 convs (one on the input shifted by one pixel), concatenated, bn.
ValueId factorized_reduction(ModelBuilder& b, ValueId x_prev, int64_t out_half) {
  ValueId x = b.relu("relu", x_prev);
  ValueId path1 = b.conv("path_1.conv", x, conv_spec(out_half, 1, 2));
  ValueId shifted = b.slice("path_2.shift", x, {1, 1}, {INT64_MAX, INT64_MAX}, {2, 3});
  ConvSpec strided = conv_spec(out_half, 1, 2);
  strided.pads = {0, 0, 1, 1};
  ValueId path2 = b.conv("path_2.conv", shifted, strided);
  return b.batch_norm("final_path_bn", b.concat("path_concat", {path1, path2}), kEpsilon);
}

ValueId avg_pool_3x3(ModelBuilder& b, const std::string& name, ValueId x) {
  return b.avg_pool(name, x, 3, 1, {1, 1, 1, 1}, /*count_include_pad=*/false);
}

// The reduction combination shared by cell_stem_0, cell_stem_1 and both reduction cells: `a` is the
// projection of the current input (pools, 5x5 and the last 3x3), `other` the other input (7x7, 5x5).
ValueId reduction_combine(ModelBuilder& b, ValueId a, ValueId other, int64_t out, Padding padding) {
  auto max_pool = [&](const std::string& name) { return b.max_pool(name, a, 3, 2, pads(3, 2, padding)); };
  ValueId c0 = b.add("comb_iter_0", branch_separables(b, "comb_iter_0_left", a, out, 5, 2, padding),
                     branch_separables(b, "comb_iter_0_right", other, out, 7, 2, padding));
  ValueId c1 = b.add("comb_iter_1", max_pool("comb_iter_1_left"),
                     branch_separables(b, "comb_iter_1_right", other, out, 7, 2, padding));
  ValueId c2 =
      b.add("comb_iter_2", b.avg_pool("comb_iter_2_left", a, 3, 2, pads(3, 2, padding), /*count_include_pad=*/false),
            branch_separables(b, "comb_iter_2_right", other, out, 5, 2, padding));
  ValueId c3 = b.add("comb_iter_3", avg_pool_3x3(b, "comb_iter_3_right", c0), c1);
  ValueId c4 = b.add("comb_iter_4", branch_separables(b, "comb_iter_4_left", c0, out, 3, 1, padding),
                     max_pool("comb_iter_4_right"));
  return b.concat("concat", {c1, c2, c3, c4});
}

// The normal combination of FirstCell and NormalCell: `left` from the previous cell, `right` from
// the current input.
ValueId normal_combine(ModelBuilder& b, ValueId left, ValueId right) {
  const int64_t out = b.channels(right);
  ValueId c0 = b.add("comb_iter_0", branch_separables(b, "comb_iter_0_left", right, out, 5, 1, Padding::kSame),
                     branch_separables(b, "comb_iter_0_right", left, out, 3, 1, Padding::kSame));
  ValueId c1 = b.add("comb_iter_1", branch_separables(b, "comb_iter_1_left", left, out, 5, 1, Padding::kSame),
                     branch_separables(b, "comb_iter_1_right", left, out, 3, 1, Padding::kSame));
  ValueId c2 = b.add("comb_iter_2", avg_pool_3x3(b, "comb_iter_2_left", right), left);
  ValueId c3 =
      b.add("comb_iter_3", avg_pool_3x3(b, "comb_iter_3_left", left), avg_pool_3x3(b, "comb_iter_3_right", left));
  ValueId c4 = b.add("comb_iter_4", branch_separables(b, "comb_iter_4_left", right, out, 3, 1, Padding::kSame), right);
  return b.concat("concat", {left, c0, c1, c2, c3, c4});
}

ValueId first_cell(ModelBuilder& b, ValueId x, ValueId x_prev, int64_t out_left, int64_t out_right) {
  ValueId left = factorized_reduction(b, x_prev, out_left);
  return normal_combine(b, left, relu_conv_bn(b, "conv_1x1", x, out_right));
}

ValueId normal_cell(ModelBuilder& b, ValueId x, ValueId x_prev, int64_t out_left, int64_t out_right) {
  ValueId left = relu_conv_bn(b, "conv_prev_1x1", x_prev, out_left);
  return normal_combine(b, left, relu_conv_bn(b, "conv_1x1", x, out_right));
}

ValueId reduction_cell(ModelBuilder& b, ValueId x, ValueId x_prev, int64_t out) {
  ValueId left = relu_conv_bn(b, "conv_prev_1x1", x_prev, out);
  return reduction_combine(b, relu_conv_bn(b, "conv_1x1", x, out), left, out, Padding::kSame);
}

}  // namespace

Result<Graph> build_nasnet_a_mobile(const ModelOptions& options) {
  TP_ASSIGN_OR_RETURN(const int64_t size, checked_image_size(options, 224, 64, "nasnet_a_mobile"));
  // The port's pad-and-slice reductions halve even maps only (an odd map gives floor(n/2) on one
  // path and ceil(n/2) on the other): cell_stem_0's output must be a multiple of 8.
  const int64_t stem_size = ((size - 3) / 2 + 1 - 1) / 2 + 1;
  if (stem_size % 8 != 0) {
    return Status::InvalidArgument("nasnet_a_mobile: image size " + std::to_string(size) + " gives a " +
                                   std::to_string(stem_size) + "x" + std::to_string(stem_size) +
                                   " map after cell_stem_0; its reduction cells need a multiple of 8 "
                                   "(image sizes such as 224 or 256)");
  }
  ModelBuilder b("nasnet_a_mobile");
  ValueId x = b.input("input", {options.batch, 3, size, size});
  ValueId conv0 = b.conv_bn("conv0", x, conv_spec(kStemFilters, 3, 2, 0), kEpsilon);
  ValueId stem0;
  {
    Scope scope(b, "cell_stem_0");
    ValueId a = relu_conv_bn(b, "conv_1x1", conv0, kFilters / 4);
    stem0 = reduction_combine(b, a, conv0, kFilters / 4, Padding::kSymmetric);
  }
  ValueId stem1;
  {
    Scope scope(b, "cell_stem_1");
    ValueId a = relu_conv_bn(b, "conv_1x1", stem0, kFilters / 2);
    stem1 = reduction_combine(b, a, factorized_reduction(b, conv0, kFilters / 4), kFilters / 2, Padding::kSame);
  }
  // (cell, input, previous cell's output) in the port's order; filters double at each reduction.
  ValueId prev = stem0;
  ValueId cur = stem1;
  auto advance = [&](ValueId next) {
    prev = cur;
    cur = next;
  };
  int index = 0;
  for (int64_t mult : {1, 2, 4}) {
    const int64_t filters = kFilters * mult;
    if (mult > 1) {
      Scope scope(b, "reduction_cell_" + std::to_string(mult / 2 - 1));
      advance(reduction_cell(b, cur, prev, filters));
      index += 2;  // the port numbers cells as TF-slim does: cell_6 follows reduction_cell_0
    }
    {
      Scope scope(b, "cell_" + std::to_string(index++));
      advance(first_cell(b, cur, prev, filters / 2, filters));
    }
    for (int i = 0; i < 3; ++i) {
      Scope scope(b, "cell_" + std::to_string(index++));
      advance(normal_cell(b, cur, prev, filters, filters));
    }
  }
  x = b.relu("relu", cur);
  x = b.flatten("flatten", b.global_avg_pool("avg_pool", x));
  return b.finish({b.dense("last_linear", x, 1000)});
}

}  // namespace tensorperf::ir::models
