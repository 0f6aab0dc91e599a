// A tensor whose value the importer knows: an ONNX initializer, a Constant node or a folded result.
// Constants stay here until an IR node reads one; then the import context adds it to the graph.
// Private to src/ir/onnx/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "base/status.h"
#include "ir/tensor_type.h"

namespace tensorperf::ir::onnx_import {

struct ConstTensor {
  DType dtype = DType::kFloat32;
  Shape shape;
  // Row-major elements in `dtype`'s layout; num_elements() * dtype_bytes(dtype) bytes. Shared, never
  // mutated, so copies are cheap.
  std::shared_ptr<const std::vector<std::byte>> data;

  TensorType type() const { return {shape, dtype}; }
  int64_t num_elements() const { return type().num_elements(); }
  bool is_integer() const { return dtype == DType::kInt8 || dtype == DType::kInt32 || dtype == DType::kInt64; }

  // Element i converted to int64 (floats truncate) or double. REQUIRES: i < num_elements().
  int64_t int_at(int64_t i) const;
  double float_at(int64_t i) const;
  std::vector<int64_t> ints() const;
  std::vector<double> floats() const;

  // Builds a tensor of `dtype` from values; floats round to the type, ints narrow to it.
  static ConstTensor from_ints(const std::vector<int64_t>& values, Shape shape, DType dtype = DType::kInt64);
  static ConstTensor from_floats(const std::vector<double>& values, Shape shape, DType dtype = DType::kFloat32);
};

// The most elements a folded constant may have (2^28): shape arithmetic makes small ones.
inline constexpr int64_t kMaxFoldedElements = int64_t{1} << 28;

// Numpy broadcasting of two shapes, or InvalidArgument naming both.
Result<Shape> broadcast_shapes(const Shape& a, const Shape& b);
// Elementwise `fn` over broadcast inputs; the result has a's dtype (computed in int64 for integer
// types, in double otherwise). Unsupported past kMaxFoldedElements.
Result<ConstTensor> fold_binary(const ConstTensor& a, const ConstTensor& b,
                                const std::function<double(double, double)>& float_fn,
                                const std::function<int64_t(int64_t, int64_t)>& int_fn);
// Permutes axes. REQUIRES: perm is a permutation of 0..rank-1.
ConstTensor fold_transpose(const ConstTensor& t, const std::vector<int64_t>& perm);

}  // namespace tensorperf::ir::onnx_import
