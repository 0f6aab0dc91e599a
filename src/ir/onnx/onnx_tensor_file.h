// ONNX TensorProto files (.pb), as the ONNX backend test data stores inputs and expected outputs:
// read one into a type and row-major bytes, or write one. No ONNX or protobuf type appears here.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "ir/tensor_type.h"

namespace tensorperf::ir {

struct TensorData {
  std::string name;  // the proto's name (may be empty)
  TensorType type;
  std::vector<std::byte> bytes;  // row-major, type.num_bytes() bytes
};

// Errors: missing file (NotFound), unreadable (IoError), not a TensorProto or inconsistent dims and
// data (Corruption), an element type the importer does not read (Unsupported); each names the file.
Result<TensorData> read_onnx_tensor(const std::string& path);
// The serialized TensorProto (raw_data) of `t`. REQUIRES: t.bytes.size() == t.type.num_bytes().
std::string onnx_tensor_bytes(const TensorData& t);

}  // namespace tensorperf::ir
