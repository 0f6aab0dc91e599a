// conv2d: x[N,C,H,W] * w[O,C/groups,KH,KW] (+ bias[O]) -> [N,O,OH,OW].
#include <string>

#include "ir/ops/op_rules.h"

namespace tensorperf::ir::ops {

namespace {
Status expect_len(const std::vector<int64_t>& v, size_t n, const char* name) {
  if (v.size() != n)
    return Status::InvalidArgument(std::string("attribute ") + name + " must have " + std::to_string(n) + " values");
  return Status::Ok();
}
}  // namespace

Result<Types> infer_conv2d(OpKind, const Types& in, const Attrs& attrs, int) {
  TP_RETURN_IF_ERROR(expect_rank(in[0], 4, "conv2d input"));
  TP_RETURN_IF_ERROR(expect_rank(in[1], 4, "conv2d weight"));
  TP_RETURN_IF_ERROR(expect_same_dtype(in));
  auto strides = attrs.get_ints("strides", {1, 1});
  auto pads = attrs.get_ints("pads", {0, 0, 0, 0});
  auto dil = attrs.get_ints("dilations", {1, 1});
  int64_t groups = attrs.get_int("groups", 1);
  TP_RETURN_IF_ERROR(expect_len(strides, 2, "strides"));
  TP_RETURN_IF_ERROR(expect_len(pads, 4, "pads"));
  TP_RETURN_IF_ERROR(expect_len(dil, 2, "dilations"));
  const Shape& x = in[0].shape;
  const Shape& w = in[1].shape;
  if (groups < 1 || x[1] % groups != 0 || w[0] % groups != 0)
    return Status::InvalidArgument("groups=" + std::to_string(groups) + " does not divide input channels " +
                                   std::to_string(x[1]) + " and output channels " + std::to_string(w[0]));
  if (w[1] * groups != x[1])
    return Status::InvalidArgument("weight " + in[1].to_string() + " expects " + std::to_string(w[1] * groups) +
                                   " input channels, input " + in[0].to_string() + " has " + std::to_string(x[1]));
  if (in.size() == 3 && in[2].shape != Shape{w[0]})
    return Status::InvalidArgument("bias " + in[2].to_string() + " must be [" + std::to_string(w[0]) + "]");
  for (int64_t s : strides)
    if (s < 1) return Status::InvalidArgument("strides must be >= 1");
  for (int64_t d : dil)
    if (d < 1) return Status::InvalidArgument("dilations must be >= 1");
  for (int64_t p : pads)
    if (p < 0) return Status::InvalidArgument("pads must be >= 0");
  int64_t oh = (x[2] + pads[0] + pads[2] - dil[0] * (w[2] - 1) - 1) / strides[0] + 1;
  int64_t ow = (x[3] + pads[1] + pads[3] - dil[1] * (w[3] - 1) - 1) / strides[1] + 1;
  if (oh < 1 || ow < 1)
    return Status::InvalidArgument("kernel " + shape_to_string({w[2], w[3]}) + " does not fit input " + in[0].to_string());
  return Types{TensorType{{x[0], w[0], oh, ow}, in[0].dtype}};
}

double flops_conv2d(OpKind, const Types& in, const Attrs&, const Types& out) {
  const Shape& w = in[1].shape;
  double macs = elements(out[0]) * static_cast<double>(w[1] * w[2] * w[3]);
  return 2 * macs + (in.size() == 3 ? elements(out[0]) : 0);
}

}  // namespace tensorperf::ir::ops
