// Element types of tensors. The names reach keys, JSON and the database: never rename one.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"

namespace tensorperf::ir {

enum class DType { kFloat32, kFloat16, kInt8, kInt32, kInt64 };

std::string_view dtype_name(DType t);          // "float32", "float16", "int8", "int32", "int64"
Result<DType> parse_dtype(std::string_view s);  // inverse of dtype_name
int64_t dtype_bytes(DType t);

}  // namespace tensorperf::ir
