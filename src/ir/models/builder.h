// The zoo's network builder: a Graph under construction with shape-only weight constants, scoped
// node names ("layer1.0.conv1") and the layer helpers the networks share (conv, batch_norm, pools,
// dense, ...). Every helper sets all attributes op_kind.h lists for its op, so zoo graphs and
// imported ONNX graphs give the same workload keys.
//
// Errors are sticky: the first failing add_op is kept, later calls return kNoValue and add nothing,
// and finish() returns that error. Network code therefore reads like its reference definition.
// Internal to src/ir/models/.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "ir/graph.h"
#include "ir/models/zoo.h"

namespace tensorperf::ir::models {

inline constexpr ValueId kNoValue = -1;

struct ConvSpec {
  int64_t out_channels = 0;
  std::array<int64_t, 2> kernel = {1, 1};      // (kh, kw)
  std::array<int64_t, 2> stride = {1, 1};      // (sh, sw)
  std::array<int64_t, 4> pads = {0, 0, 0, 0};  // top, left, bottom, right
  int64_t groups = 1;
  bool bias = false;  // bias as conv2d's third input (torch Conv2d(bias=True))
};

// torch's Conv2d(in, out, kernel_size=k, stride=stride, padding=pad) form.
ConvSpec conv_spec(int64_t out_channels, int64_t kernel, int64_t stride = 1, int64_t pad = 0);

class ModelBuilder {
 public:
  explicit ModelBuilder(std::string graph_name) : graph_(std::move(graph_name)) {}

  // Node and weight names are prefixed with the open scopes, joined by '.'.
  void push_scope(const std::string& name) { scopes_.push_back(name); }
  void pop_scope() { scopes_.pop_back(); }
  std::string scoped(const std::string& name) const;

  ValueId input(const std::string& name, Shape shape);
  // A shape-only float32 constant (a weight), named with the open scopes.
  ValueId weight(const std::string& name, Shape shape);

  // One node with a single output. `name` is scoped.
  ValueId op(OpKind kind, const std::string& name, std::vector<ValueId> inputs, Attrs attrs = {});

  ValueId conv(const std::string& name, ValueId x, const ConvSpec& spec);
  ValueId batch_norm(const std::string& name, ValueId x, double epsilon = 1e-5);
  ValueId relu(const std::string& name, ValueId x) { return op(OpKind::kRelu, name, {x}); }
  ValueId relu6(const std::string& name, ValueId x) { return op(OpKind::kRelu6, name, {x}); }
  ValueId add(const std::string& name, ValueId a, ValueId b) { return op(OpKind::kAdd, name, {a, b}); }
  // Sums `xs` left to right with add nodes "<name>", "<name>_1", ...; a single value is returned as is.
  ValueId sum(const std::string& name, const std::vector<ValueId>& xs);
  // x * c for a scalar constant c (a shape-[1] weight "<name>.constant").
  ValueId scale(const std::string& name, ValueId x);

  // conv (no bias) -> batch_norm, then relu / relu6: torchvision's Conv2d+BatchNorm2d(+ReLU) blocks.
  ValueId conv_bn(const std::string& name, ValueId x, ConvSpec spec, double epsilon = 1e-5);
  ValueId conv_bn_relu(const std::string& name, ValueId x, const ConvSpec& spec, double epsilon = 1e-5);
  ValueId conv_bn_relu6(const std::string& name, ValueId x, const ConvSpec& spec);

  ValueId max_pool(const std::string& name, ValueId x, int64_t kernel, int64_t stride,
                   std::array<int64_t, 4> pads = {0, 0, 0, 0}, bool ceil_mode = false);
  ValueId avg_pool(const std::string& name, ValueId x, int64_t kernel, int64_t stride, std::array<int64_t, 4> pads,
                   bool count_include_pad, bool ceil_mode = false);
  ValueId global_avg_pool(const std::string& name, ValueId x) { return op(OpKind::kGlobalAvgPool2d, name, {x}); }
  ValueId flatten(const std::string& name, ValueId x);
  // torch Linear: x[..., in] -> [..., out], weight [out, in], bias as the third input.
  ValueId dense(const std::string& name, ValueId x, int64_t out_features);
  ValueId concat(const std::string& name, std::vector<ValueId> xs, int64_t axis = 1);
  // ONNX Slice semantics (ends clamped), steps 1; starts/ends/axes of equal length.
  ValueId slice(const std::string& name, ValueId x, std::vector<int64_t> starts, std::vector<int64_t> ends,
                std::vector<int64_t> axes);

  bool ok() const { return status_.ok(); }
  // REQUIRES: ok() and v is a value of this graph with a known type.
  const Shape& shape(ValueId v) const { return graph_.type(v).shape; }
  // Channels (dim 1) of v, or 0 once an error is recorded.
  int64_t channels(ValueId v) const { return ok() ? shape(v).at(1) : 0; }

  // Marks `outputs`, validates and returns the graph, or the first error (with the graph's name).
  Result<Graph> finish(const std::vector<ValueId>& outputs);

 private:
  Graph graph_;
  std::vector<std::string> scopes_;
  Status status_;
};

// Opens a name scope for its lifetime.
class Scope {
 public:
  Scope(ModelBuilder& b, const std::string& name) : b_(b) { b_.push_scope(name); }
  ~Scope() { b_.pop_scope(); }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  ModelBuilder& b_;
};

// InvalidArgument unless options.batch >= 1.
Status check_batch(const ModelOptions& options, const std::string& model);
// The image size to build: options.image_size, or `standard` when it is 0. InvalidArgument when the
// batch is below 1 or the size below `minimum` (the smallest the network's strides accept).
Result<int64_t> checked_image_size(const ModelOptions& options, int64_t standard, int64_t minimum,
                                   const std::string& model);

}  // namespace tensorperf::ir::models
