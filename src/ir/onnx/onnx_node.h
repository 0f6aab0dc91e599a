// One ONNX node as the converters see it: inputs, outputs, typed attributes, and errors that name
// the node, its op type and the model's opset. Private to src/ir/onnx/.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "ir/onnx/const_tensor.h"

namespace onnx {
class NodeProto;
}  // namespace onnx

namespace tensorperf::ir::onnx_import {

class OnnxNode {
 public:
  // REQUIRES: `proto` outlives this view.
  OnnxNode(const onnx::NodeProto& proto, int64_t opset) : proto_(proto), opset_(opset) {}

  // The node's name, or its first output's name when the file leaves the name empty.
  std::string name() const;
  const std::string& op_type() const;
  int64_t opset() const { return opset_; }

  // Optional inputs and outputs may be absent (index past the end) or empty strings.
  int num_inputs() const;
  bool has_input(int i) const;
  const std::string& input(int i) const;  // REQUIRES: i < num_inputs()
  int num_outputs() const;
  bool has_output(int i) const;
  const std::string& output(int i) const;  // REQUIRES: i < num_outputs()

  bool has_attr(std::string_view name) const;
  // Typed attributes; `fallback` when absent, InvalidArgument when present with another type.
  Result<int64_t> attr_int(std::string_view name, int64_t fallback) const;
  Result<double> attr_float(std::string_view name, double fallback) const;
  Result<std::string> attr_string(std::string_view name, const std::string& fallback) const;
  Result<std::vector<int64_t>> attr_ints(std::string_view name, const std::vector<int64_t>& fallback) const;
  Result<std::vector<double>> attr_floats(std::string_view name) const;  // NotFound when absent
  Result<ConstTensor> attr_tensor(std::string_view name) const;          // NotFound when absent

  // Unsupported if the node carries an attribute outside `known` (names the attribute).
  Status check_attrs(std::initializer_list<std::string_view> known) const;
  // "node '<name>' (<op type>, opset <n>)": the context of every error about this node.
  std::string describe() const;
  // Errors prefixed "<describe()>: ".
  Status unsupported(const std::string& what) const;
  Status invalid(const std::string& what) const;
  // Requires at least `min` and at most `max` present inputs (counting trailing optional ones).
  Status check_inputs(int min, int max) const;

 private:
  std::string prefix() const { return describe() + ": "; }

  const onnx::NodeProto& proto_;
  int64_t opset_;
};

}  // namespace tensorperf::ir::onnx_import
