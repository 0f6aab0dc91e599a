// ONNX TensorProto (initializers, Constant values) to ConstTensor. Private to src/ir/onnx/.
#pragma once

#include "base/status.h"
#include "ir/onnx/const_tensor.h"

namespace onnx {
class TensorProto;
}  // namespace onnx

namespace tensorperf::ir::onnx_import {

// Reads raw_data or the typed fields (float_data, int32_data, int64_data, double_data). float32,
// float16, int8, int32 and int64 keep their type; double becomes float32, uint8/int16/bool become
// int32. Errors: Unsupported for other element types and external data, Corruption when the data
// size does not match the dims; each message names the tensor.
Result<ConstTensor> tensor_from_proto(const onnx::TensorProto& proto);

}  // namespace tensorperf::ir::onnx_import
