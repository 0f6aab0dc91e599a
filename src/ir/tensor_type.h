// The static type of a tensor: shape and element type. Layout is NCHW for images throughout the IR;
// kernels may choose other layouts internally.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
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

// The largest tensor tensorperf handles: kernels index with 32-bit integers (Halide's buffers), so a
// tensor has at most 2^31 - 1 elements, and so at most that many along any dimension. Every size
// that comes from input (a model, a key, a batch or image size) is checked against these before
// anything is derived from it or allocated.
inline constexpr int64_t kMaxTensorElements = (int64_t{1} << 31) - 1;
inline constexpr int64_t kMaxDimension = kMaxTensorElements;

// OK when every dimension is in [0, kMaxDimension] and the element count (computed without
// overflow) is at most kMaxTensorElements; otherwise InvalidArgument naming `what` and the limit.
Status check_size(const TensorType& t, std::string_view what);

// Parses to_string()'s form.
Result<TensorType> parse_tensor_type(std::string_view s);
std::string shape_to_string(const Shape& shape);  // "[1,64,56,56]"

}  // namespace tensorperf::ir
