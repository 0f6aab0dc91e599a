#include "ir/onnx/onnx_reader.h"

#include "base/read_file.h"

#include <onnx/onnx_pb.h>

#include <cstdint>

namespace tensorperf::ir::onnx_import {
namespace {

bool is_default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

}  // namespace

Result<std::unique_ptr<onnx::ModelProto>> read_onnx_model(const std::string& path) {
  TP_ASSIGN_OR_RETURN(std::string bytes, read_file(path));
  return parse_onnx_model(bytes, path);
}

Result<std::unique_ptr<onnx::ModelProto>> parse_onnx_model(std::string_view bytes, const std::string& name) {
  auto model = std::make_unique<onnx::ModelProto>();
  const bool parsed = bytes.size() <= static_cast<size_t>(INT32_MAX) &&
                      model->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
  // A model of other domains only (ai.onnx.preview.training, ...) is a model: import_model says
  // it is unsupported.
  if (!parsed || !model->has_graph() || model->ir_version() <= 0) {
    return Status::Corruption(name + ": not an ONNX model or truncated");
  }
  return model;
}

int64_t default_opset(const onnx::ModelProto& model) {
  for (const auto& o : model.opset_import()) {
    if (is_default_domain(o.domain())) return o.version();
  }
  return 0;
}

}  // namespace tensorperf::ir::onnx_import
