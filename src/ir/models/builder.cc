#include "ir/models/builder.h"

#include <utility>

namespace tensorperf::ir::models {

ConvSpec conv_spec(int64_t out_channels, int64_t kernel, int64_t stride, int64_t pad) {
  return ConvSpec{.out_channels = out_channels,
                  .kernel = {kernel, kernel},
                  .stride = {stride, stride},
                  .pads = {pad, pad, pad, pad}};
}

std::string ModelBuilder::scoped(const std::string& name) const {
  std::string out;
  for (const std::string& s : scopes_) {
    out += s;
    out += '.';
  }
  return out + name;
}

ValueId ModelBuilder::input(const std::string& name, Shape shape) {
  if (!ok()) return kNoValue;
  return graph_.add_input(name, TensorType{std::move(shape), DType::kFloat32});
}

ValueId ModelBuilder::weight(const std::string& name, Shape shape) {
  if (!ok()) return kNoValue;
  return graph_.add_constant(scoped(name), TensorType{std::move(shape), DType::kFloat32});
}

ValueId ModelBuilder::op(OpKind kind, const std::string& name, std::vector<ValueId> inputs, Attrs attrs) {
  if (!ok()) return kNoValue;
  Result<ValueId> out = graph_.add_op(kind, scoped(name), std::move(inputs), std::move(attrs));
  if (!out.ok()) {
    status_ = out.status();
    return kNoValue;
  }
  return *out;
}

ValueId ModelBuilder::conv(const std::string& name, ValueId x, const ConvSpec& spec) {
  if (!ok()) return kNoValue;
  const int64_t in_channels = channels(x);
  std::vector<ValueId> inputs = {
      x, weight(name + ".weight", {spec.out_channels, in_channels / spec.groups, spec.kernel[0], spec.kernel[1]})};
  if (spec.bias) inputs.push_back(weight(name + ".bias", {spec.out_channels}));
  Attrs attrs{{"strides", std::vector<int64_t>{spec.stride[0], spec.stride[1]}},
              {"pads", std::vector<int64_t>(spec.pads.begin(), spec.pads.end())},
              {"dilations", std::vector<int64_t>{1, 1}},
              {"groups", spec.groups}};
  return op(OpKind::kConv2d, name, std::move(inputs), std::move(attrs));
}

ValueId ModelBuilder::batch_norm(const std::string& name, ValueId x, double epsilon) {
  const int64_t c = channels(x);
  std::vector<ValueId> inputs = {x, weight(name + ".weight", {c}), weight(name + ".bias", {c}),
                                 weight(name + ".running_mean", {c}), weight(name + ".running_var", {c})};
  return op(OpKind::kBatchNorm, name, std::move(inputs), Attrs{{"epsilon", epsilon}});
}

ValueId ModelBuilder::sum(const std::string& name, const std::vector<ValueId>& xs) {
  if (xs.empty()) {
    if (ok()) status_ = Status::Internal("empty sum '" + scoped(name) + "'");
    return kNoValue;
  }
  ValueId acc = xs[0];
  for (size_t i = 1; i < xs.size(); ++i) {
    acc = add(i == 1 ? name : name + "_" + std::to_string(i - 1), acc, xs[i]);
  }
  return acc;
}

ValueId ModelBuilder::scale(const std::string& name, ValueId x) {
  return op(OpKind::kMul, name, {x, weight(name + ".constant", {1})});
}

ValueId ModelBuilder::conv_bn(const std::string& name, ValueId x, ConvSpec spec, double epsilon) {
  spec.bias = false;
  return batch_norm(name + ".bn", conv(name + ".conv", x, spec), epsilon);
}

ValueId ModelBuilder::conv_bn_relu(const std::string& name, ValueId x, const ConvSpec& spec, double epsilon) {
  return relu(name + ".relu", conv_bn(name, x, spec, epsilon));
}

ValueId ModelBuilder::conv_bn_relu6(const std::string& name, ValueId x, const ConvSpec& spec) {
  return relu6(name + ".relu6", conv_bn(name, x, spec));
}

ValueId ModelBuilder::max_pool(const std::string& name, ValueId x, int64_t kernel, int64_t stride,
                               std::array<int64_t, 4> pads, bool ceil_mode) {
  Attrs attrs{{"kernel", std::vector<int64_t>{kernel, kernel}},
              {"strides", std::vector<int64_t>{stride, stride}},
              {"pads", std::vector<int64_t>(pads.begin(), pads.end())},
              {"dilations", std::vector<int64_t>{1, 1}},
              {"ceil_mode", int64_t{ceil_mode ? 1 : 0}}};
  return op(OpKind::kMaxPool2d, name, {x}, std::move(attrs));
}

ValueId ModelBuilder::avg_pool(const std::string& name, ValueId x, int64_t kernel, int64_t stride,
                               std::array<int64_t, 4> pads, bool count_include_pad, bool ceil_mode) {
  Attrs attrs{{"kernel", std::vector<int64_t>{kernel, kernel}},
              {"strides", std::vector<int64_t>{stride, stride}},
              {"pads", std::vector<int64_t>(pads.begin(), pads.end())},
              {"ceil_mode", int64_t{ceil_mode ? 1 : 0}},
              {"count_include_pad", int64_t{count_include_pad ? 1 : 0}}};
  return op(OpKind::kAvgPool2d, name, {x}, std::move(attrs));
}

ValueId ModelBuilder::flatten(const std::string& name, ValueId x) {
  return op(OpKind::kFlatten, name, {x}, Attrs{{"axis", int64_t{1}}});
}

ValueId ModelBuilder::dense(const std::string& name, ValueId x, int64_t out_features) {
  if (!ok()) return kNoValue;
  const int64_t in_features = shape(x).back();
  return op(OpKind::kDense, name,
            {x, weight(name + ".weight", {out_features, in_features}), weight(name + ".bias", {out_features})});
}

ValueId ModelBuilder::concat(const std::string& name, std::vector<ValueId> xs, int64_t axis) {
  return op(OpKind::kConcat, name, std::move(xs), Attrs{{"axis", axis}});
}

ValueId ModelBuilder::slice(const std::string& name, ValueId x, std::vector<int64_t> starts, std::vector<int64_t> ends,
                            std::vector<int64_t> axes) {
  std::vector<int64_t> steps(axes.size(), 1);
  Attrs attrs{
      {"starts", std::move(starts)}, {"ends", std::move(ends)}, {"axes", std::move(axes)}, {"steps", std::move(steps)}};
  return op(OpKind::kSlice, name, {x}, std::move(attrs));
}

Result<Graph> ModelBuilder::finish(const std::vector<ValueId>& outputs) {
  if (!ok()) return status_.WithContext("building model '" + graph_.name() + "'");
  for (ValueId v : outputs) graph_.mark_output(v);
  Status valid = graph_.validate();
  if (!valid.ok()) return valid.WithContext("model '" + graph_.name() + "' does not validate");
  return std::move(graph_);
}

Status check_batch(const ModelOptions& options, const std::string& model) {
  if (options.batch < 1) {
    return Status::InvalidArgument(model + ": batch must be at least 1, got " + std::to_string(options.batch));
  }
  return Status::Ok();
}

Result<int64_t> checked_image_size(const ModelOptions& options, int64_t standard, int64_t minimum,
                                   const std::string& model) {
  TP_RETURN_IF_ERROR(check_batch(options, model));
  const int64_t size = options.image_size == 0 ? standard : options.image_size;
  if (size < minimum) {
    return Status::InvalidArgument(model + ": image size must be at least " + std::to_string(minimum) + ", got " +
                                   std::to_string(size));
  }
  return size;
}

}  // namespace tensorperf::ir::models
