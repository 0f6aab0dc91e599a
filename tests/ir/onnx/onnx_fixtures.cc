#include "onnx_fixtures.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace tensorperf::ir::testing {
namespace {

std::string* g_dir = nullptr;

void remove_fixtures() {
  std::error_code ec;
  std::filesystem::remove_all(*g_dir, ec);
}

}  // namespace

std::string onnx_fixture(const std::string& name) {
  if (g_dir == nullptr) {
    g_dir = new std::string(
        (std::filesystem::temp_directory_path() / ("tp_onnx_fixtures_" + std::to_string(::getpid()))).string());
    const std::string cmd =
        std::string("/usr/bin/python3 ") + TENSORPERF_SOURCE_DIR + "/tests/ir/onnx/make_onnx_fixtures.py " + *g_dir;
    if (std::system(cmd.c_str()) != 0) throw std::runtime_error("fixture script failed: " + cmd);
    std::atexit(remove_fixtures);
  }
  return *g_dir + "/" + name + ".onnx";
}

Result<Graph> import_fixture(const std::string& name, const OnnxImportOptions& options) {
  return import_onnx(onnx_fixture(name), options);
}

std::vector<std::string> op_sequence(const Graph& g) {
  std::vector<std::string> ops;
  const std::vector<NodeId> order = g.topo_order().value();
  for (NodeId n : order) ops.emplace_back(op_name(g.node(n).op));
  return ops;
}

const Node& only_node(const Graph& g, OpKind op) {
  const Node* found = nullptr;
  for (const Node& n : g.nodes()) {
    if (n.op != op) continue;
    if (found != nullptr) throw std::runtime_error("several " + std::string(op_name(op)) + " nodes");
    found = &n;
  }
  if (found == nullptr) throw std::runtime_error("no " + std::string(op_name(op)) + " node");
  return *found;
}

std::vector<float> constant_floats(const Graph& g, ValueId v) {
  const Value& value = g.value(v);
  if (value.kind != ValueKind::kConstant || !value.data || value.type->dtype != DType::kFloat32) {
    throw std::runtime_error("value " + value.name + " is not a float32 constant with data");
  }
  std::vector<float> out(value.data->size() / sizeof(float));
  std::memcpy(out.data(), value.data->data(), value.data->size());
  return out;
}

}  // namespace tensorperf::ir::testing
