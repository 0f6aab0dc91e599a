#include "ir/onnx/onnx_node.h"

#include <onnx/onnx_pb.h>

#include "ir/onnx/tensor_proto.h"

namespace tensorperf::ir::onnx_import {
namespace {

using onnx::AttributeProto;

const AttributeProto* find_attr(const onnx::NodeProto& proto, std::string_view name) {
  for (const AttributeProto& a : proto.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

std::string type_name(const AttributeProto& a) { return AttributeProto::AttributeType_Name(a.type()); }

}  // namespace

std::string OnnxNode::name() const {
  if (!proto_.name().empty()) return proto_.name();
  return proto_.output_size() > 0 ? proto_.output(0) : proto_.op_type();
}

const std::string& OnnxNode::op_type() const { return proto_.op_type(); }

int OnnxNode::num_inputs() const { return proto_.input_size(); }
bool OnnxNode::has_input(int i) const { return i < proto_.input_size() && !proto_.input(i).empty(); }
const std::string& OnnxNode::input(int i) const { return proto_.input(i); }
int OnnxNode::num_outputs() const { return proto_.output_size(); }
bool OnnxNode::has_output(int i) const { return i < proto_.output_size() && !proto_.output(i).empty(); }
const std::string& OnnxNode::output(int i) const { return proto_.output(i); }

bool OnnxNode::has_attr(std::string_view name) const { return find_attr(proto_, name) != nullptr; }

Result<int64_t> OnnxNode::attr_int(std::string_view name, int64_t fallback) const {
  const AttributeProto* a = find_attr(proto_, name);
  if (a == nullptr) return fallback;
  if (a->type() != AttributeProto::INT) {
    return invalid("attribute " + std::string(name) + " should be INT but is " + type_name(*a));
  }
  return static_cast<int64_t>(a->i());
}

Result<double> OnnxNode::attr_float(std::string_view name, double fallback) const {
  const AttributeProto* a = find_attr(proto_, name);
  if (a == nullptr) return fallback;
  if (a->type() != AttributeProto::FLOAT) {
    return invalid("attribute " + std::string(name) + " should be FLOAT but is " + type_name(*a));
  }
  return static_cast<double>(a->f());
}

Result<std::string> OnnxNode::attr_string(std::string_view name, const std::string& fallback) const {
  const AttributeProto* a = find_attr(proto_, name);
  if (a == nullptr) return fallback;
  if (a->type() != AttributeProto::STRING) {
    return invalid("attribute " + std::string(name) + " should be STRING but is " + type_name(*a));
  }
  return a->s();
}

Result<std::vector<int64_t>> OnnxNode::attr_ints(std::string_view name, const std::vector<int64_t>& fallback) const {
  const AttributeProto* a = find_attr(proto_, name);
  if (a == nullptr) return fallback;
  if (a->type() != AttributeProto::INTS) {
    return invalid("attribute " + std::string(name) + " should be INTS but is " + type_name(*a));
  }
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

Result<std::vector<double>> OnnxNode::attr_floats(std::string_view name) const {
  const AttributeProto* a = find_attr(proto_, name);
  if (a == nullptr) return Status::NotFound(prefix() + "no attribute " + std::string(name));
  if (a->type() != AttributeProto::FLOATS) {
    return invalid("attribute " + std::string(name) + " should be FLOATS but is " + type_name(*a));
  }
  return std::vector<double>(a->floats().begin(), a->floats().end());
}

Result<ConstTensor> OnnxNode::attr_tensor(std::string_view name) const {
  const AttributeProto* a = find_attr(proto_, name);
  if (a == nullptr) return Status::NotFound(prefix() + "no attribute " + std::string(name));
  if (a->type() != AttributeProto::TENSOR) {
    return invalid("attribute " + std::string(name) + " should be TENSOR but is " + type_name(*a));
  }
  Result<ConstTensor> t = tensor_from_proto(a->t());
  if (!t.ok()) return t.status().WithContext(prefix() + "attribute " + std::string(name));
  return t;
}

Status OnnxNode::check_attrs(std::initializer_list<std::string_view> known) const {
  for (const AttributeProto& a : proto_.attribute()) {
    bool found = false;
    for (std::string_view k : known) found = found || a.name() == k;
    if (!found) return unsupported("attribute " + a.name() + " is not supported");
  }
  return Status::Ok();
}

std::string OnnxNode::describe() const {
  return "node '" + name() + "' (" + op_type() + ", opset " + std::to_string(opset_) + ")";
}

Status OnnxNode::unsupported(const std::string& what) const { return Status::Unsupported(prefix() + what); }
Status OnnxNode::invalid(const std::string& what) const { return Status::InvalidArgument(prefix() + what); }

Status OnnxNode::check_inputs(int min, int max) const {
  int present = num_inputs();
  while (present > 0 && input(present - 1).empty()) --present;
  if (present < min || present > max) {
    return invalid("has " + std::to_string(present) + " inputs, expected " +
                   (min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max)));
  }
  return Status::Ok();
}

}  // namespace tensorperf::ir::onnx_import
