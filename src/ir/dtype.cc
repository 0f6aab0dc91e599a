#include "ir/dtype.h"

#include <string>

namespace tensorperf::ir {

namespace {
struct DTypeInfo {
  DType type;
  std::string_view name;
  int64_t bytes;
};
constexpr DTypeInfo kDTypes[] = {
    {DType::kFloat32, "float32", 4}, {DType::kFloat16, "float16", 2}, {DType::kInt8, "int8", 1},
    {DType::kInt32, "int32", 4},     {DType::kInt64, "int64", 8},
};
const DTypeInfo& info(DType t) {
  for (const auto& i : kDTypes)
    if (i.type == t) return i;
  return kDTypes[0];
}
}  // namespace

std::string_view dtype_name(DType t) { return info(t).name; }
int64_t dtype_bytes(DType t) { return info(t).bytes; }

Result<DType> parse_dtype(std::string_view s) {
  for (const auto& i : kDTypes)
    if (i.name == s) return i.type;
  return Status::InvalidArgument("unknown dtype \"" + std::string(s) +
                                 "\" (known: float32, float16, int8, int32, int64)");
}

}  // namespace tensorperf::ir
