// ONNX import: a .onnx file (opsets 11–17) into the IR, initializers included as constant data.
// No ONNX or protobuf type appears here; the implementation hides them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "ir/graph.h"

namespace tensorperf::ir {

struct OnnxImportOptions {
  int64_t batch = 0;  // 0: keep the file's batch; otherwise dim 0 of every graph input
};

// Errors, each one line: a missing or unreadable file (IoError/NotFound), a truncated or non-ONNX
// file (Corruption), an unsupported operator, attribute or opset (Unsupported, naming the node, its
// op type and the opset), and any IR validation error.
Result<Graph> import_onnx(const std::string& path, const OnnxImportOptions& options = {});
// The same from a model's bytes in memory; `name` stands for a path in messages.
Result<Graph> import_onnx_bytes(std::string_view bytes, const std::string& name, const OnnxImportOptions& options = {});

}  // namespace tensorperf::ir
