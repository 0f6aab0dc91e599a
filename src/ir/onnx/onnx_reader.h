// Reading a .onnx file into ONNX's protobuf classes, with the file errors users see. Private to
// src/ir/onnx/.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace onnx {
class ModelProto;
}  // namespace onnx

namespace tensorperf::ir::onnx_import {

// Errors, each naming the path: NotFound (no such file), IoError (a directory, or unreadable),
// Corruption ("<path>: not an ONNX model or truncated") when the bytes do not parse as a ModelProto
// or lack a graph or an opset.
Result<std::unique_ptr<onnx::ModelProto>> read_onnx_model(const std::string& path);
// The same for a model's bytes; `name` stands for the path in messages.
Result<std::unique_ptr<onnx::ModelProto>> parse_onnx_model(std::string_view bytes, const std::string& name);

// The version of the default ("" / "ai.onnx") operator set the model imports. REQUIRES: the model
// came from read_onnx_model (which checks that one exists).
int64_t default_opset(const onnx::ModelProto& model);

}  // namespace tensorperf::ir::onnx_import
