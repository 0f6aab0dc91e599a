// Tensor files for model inputs and outputs, chosen by extension: NumPy's .npy (version 1-3,
// C order, little-endian float32 / int32 / int64) or an ONNX TensorProto .pb (what the ONNX
// backend test data holds).
#pragma once

#include <string>

#include "base/status.h"
#include "ir/onnx/onnx_tensor_file.h"

namespace tensorperf::runtime {

// Errors, each naming the file: unknown extension (InvalidArgument), missing (NotFound), malformed
// header or short data (Corruption), Fortran order or another element type (Unsupported).
Result<ir::TensorData> read_tensor_file(const std::string& path);
// Writes atomically (the file appears whole or not at all). .npy or .pb by extension.
Status write_tensor_file(const std::string& path, const ir::TensorData& t);

// The .npy bytes of `t` (format version 1.0).
std::string npy_bytes(const ir::TensorData& t);
// Parses .npy bytes; `name` stands for the file in messages.
Result<ir::TensorData> parse_npy(std::string_view bytes, const std::string& name);

}  // namespace tensorperf::runtime
