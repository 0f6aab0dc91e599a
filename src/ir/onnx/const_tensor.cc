#include "ir/onnx/const_tensor.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace tensorperf::ir::onnx_import {
namespace {

float half_to_float(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0) {  // zero or subnormal
    const float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  const uint32_t bits = exp == 0x1f ? (sign | 0x7f800000u | (mant << 13)) : (sign | ((exp + 112) << 23) | (mant << 13));
  return std::bit_cast<float>(bits);
}

uint16_t float_to_half(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  if (std::isnan(f)) return sign | 0x7e00u;
  const float a = std::fabs(f);
  if (a >= 65520.0f) return sign | 0x7c00u;  // rounds to infinity
  if (a < 6.103515625e-05f) {                // subnormal half (or zero)
    return sign | static_cast<uint16_t>(std::lrint(a * 16777216.0f));
  }
  int e = 0;
  const float m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  uint32_t mant = static_cast<uint32_t>(std::lrint((m * 2.0f - 1.0f) * 1024.0f));
  int exp = e - 1 + 15;
  if (mant == 1024) {
    mant = 0;
    ++exp;
  }
  return sign | static_cast<uint16_t>(exp << 10) | static_cast<uint16_t>(mant);
}

template <typename T>
T load(const std::vector<std::byte>& bytes, int64_t i) {
  T v;
  std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
  return v;
}

template <typename T>
void store(std::vector<std::byte>& bytes, int64_t i, T v) {
  std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
}

std::vector<int64_t> strides_of(const Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

}  // namespace

int64_t ConstTensor::int_at(int64_t i) const {
  switch (dtype) {
    case DType::kInt64:
      return load<int64_t>(*data, i);
    case DType::kInt32:
      return load<int32_t>(*data, i);
    case DType::kInt8:
      return load<int8_t>(*data, i);
    case DType::kFloat32:
    case DType::kFloat16:
      return static_cast<int64_t>(float_at(i));
  }
  return 0;
}

double ConstTensor::float_at(int64_t i) const {
  switch (dtype) {
    case DType::kFloat32:
      return load<float>(*data, i);
    case DType::kFloat16:
      return half_to_float(load<uint16_t>(*data, i));
    case DType::kInt64:
    case DType::kInt32:
    case DType::kInt8:
      return static_cast<double>(int_at(i));
  }
  return 0;
}

std::vector<int64_t> ConstTensor::ints() const {
  std::vector<int64_t> out(num_elements());
  for (int64_t i = 0; i < num_elements(); ++i) out[i] = int_at(i);
  return out;
}

std::vector<double> ConstTensor::floats() const {
  std::vector<double> out(num_elements());
  for (int64_t i = 0; i < num_elements(); ++i) out[i] = float_at(i);
  return out;
}

ConstTensor ConstTensor::from_ints(const std::vector<int64_t>& values, Shape shape, DType dtype) {
  if (dtype == DType::kFloat32 || dtype == DType::kFloat16) {
    return from_floats(std::vector<double>(values.begin(), values.end()), std::move(shape), dtype);
  }
  auto bytes = std::make_shared<std::vector<std::byte>>(values.size() * dtype_bytes(dtype));
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == DType::kInt64) store<int64_t>(*bytes, i, values[i]);
    if (dtype == DType::kInt32) store<int32_t>(*bytes, i, static_cast<int32_t>(values[i]));
    if (dtype == DType::kInt8) store<int8_t>(*bytes, i, static_cast<int8_t>(values[i]));
  }
  return ConstTensor{dtype, std::move(shape), std::move(bytes)};
}

ConstTensor ConstTensor::from_floats(const std::vector<double>& values, Shape shape, DType dtype) {
  if (dtype != DType::kFloat32 && dtype != DType::kFloat16) {
    std::vector<int64_t> ints(values.size());
    for (size_t i = 0; i < values.size(); ++i) ints[i] = static_cast<int64_t>(values[i]);
    return from_ints(ints, std::move(shape), dtype);
  }
  auto bytes = std::make_shared<std::vector<std::byte>>(values.size() * dtype_bytes(dtype));
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == DType::kFloat32) store<float>(*bytes, i, static_cast<float>(values[i]));
    if (dtype == DType::kFloat16) store<uint16_t>(*bytes, i, float_to_half(static_cast<float>(values[i])));
  }
  return ConstTensor{dtype, std::move(shape), std::move(bytes)};
}

Result<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      return Status::InvalidArgument("shapes " + shape_to_string(a) + " and " + shape_to_string(b) +
                                     " do not broadcast");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Result<ConstTensor> fold_binary(const ConstTensor& a, const ConstTensor& b,
                                const std::function<double(double, double)>& float_fn,
                                const std::function<int64_t(int64_t, int64_t)>& int_fn) {
  TP_ASSIGN_OR_RETURN(Shape out_shape, broadcast_shapes(a.shape, b.shape));
  const int64_t rank = static_cast<int64_t>(out_shape.size());
  const std::vector<int64_t> out_strides = strides_of(out_shape);
  // Strides of each input over the output's index space (0 along broadcast axes).
  auto input_strides = [&](const Shape& s) {
    std::vector<int64_t> own = strides_of(s);
    std::vector<int64_t> strides(rank, 0);
    const int64_t offset = rank - static_cast<int64_t>(s.size());
    for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d) strides[d + offset] = s[d] == 1 ? 0 : own[d];
    return strides;
  };
  const std::vector<int64_t> sa = input_strides(a.shape);
  const std::vector<int64_t> sb = input_strides(b.shape);
  const int64_t n = TensorType{out_shape, a.dtype}.num_elements();
  if (n > kMaxFoldedElements) {
    return Status::Unsupported("folding " + shape_to_string(out_shape) + " constants: too many elements");
  }
  std::vector<int64_t> ints;
  std::vector<double> floats;
  for (int64_t i = 0; i < n; ++i) {
    int64_t ia = 0;
    int64_t ib = 0;
    for (int64_t d = 0, rem = i; d < rank; ++d) {
      const int64_t idx = rem / out_strides[d];
      rem %= out_strides[d];
      ia += idx * sa[d];
      ib += idx * sb[d];
    }
    if (a.is_integer()) {
      ints.push_back(int_fn(a.int_at(ia), b.int_at(ib)));
    } else {
      floats.push_back(float_fn(a.float_at(ia), b.float_at(ib)));
    }
  }
  return a.is_integer() ? ConstTensor::from_ints(ints, out_shape, a.dtype)
                        : ConstTensor::from_floats(floats, out_shape, a.dtype);
}

ConstTensor fold_transpose(const ConstTensor& t, const std::vector<int64_t>& perm) {
  const int64_t rank = t.type().rank();
  Shape out_shape(rank);
  for (int64_t d = 0; d < rank; ++d) out_shape[d] = t.shape[perm[d]];
  const std::vector<int64_t> in_strides = strides_of(t.shape);
  const std::vector<int64_t> out_strides = strides_of(out_shape);
  const int64_t elem = dtype_bytes(t.dtype);
  const int64_t n = t.num_elements();
  auto bytes = std::make_shared<std::vector<std::byte>>(n * elem);
  for (int64_t i = 0; i < n; ++i) {
    int64_t src = 0;
    for (int64_t d = 0, rem = i; d < rank; ++d) {
      src += (rem / out_strides[d]) * in_strides[perm[d]];
      rem %= out_strides[d];
    }
    std::memcpy(bytes->data() + i * elem, t.data->data() + src * elem, elem);
  }
  return ConstTensor{t.dtype, std::move(out_shape), std::move(bytes)};
}

}  // namespace tensorperf::ir::onnx_import
