// The static type of a tensor: shape and element type. Layout is NCHW for images throughout the IR;
// kernels may choose other layouts internally.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace tensorperf::ir {

using Shape = std::vector<int64_t>;

struct TensorType {
  Shape shape;
  DType dtype = DType::kFloat32;

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  int64_t num_elements() const;
  int64_t num_bytes() const { return num_elements() * dtype_bytes(dtype); }
  // "float32[1,64,56,56]"; the form used inside workload keys.
  std::string to_string() const;
  bool operator==(const TensorType&) const = default;
};

// Parses to_string()'s form.
Result<TensorType> parse_tensor_type(std::string_view s);
std::string shape_to_string(const Shape& shape);  // "[1,64,56,56]"

}  // namespace tensorperf::ir
