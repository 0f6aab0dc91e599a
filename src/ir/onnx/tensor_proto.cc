#include "ir/onnx/tensor_proto.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <string>

namespace tensorperf::ir::onnx_import {
namespace {

using onnx::TensorProto;

// Larger element counts are taken as a corrupt file (they would not fit in memory anyway).
constexpr int64_t kMaxElements = int64_t{1} << 40;

// Reads `n` little-endian elements of type T from raw bytes.
template <typename T>
std::vector<T> from_raw(const std::string& raw, int64_t n) {
  std::vector<T> out(n);
  if (n > 0) std::memcpy(out.data(), raw.data(), n * sizeof(T));  // an empty vector's data() may be null
  return out;
}

}  // namespace

Result<ConstTensor> tensor_from_proto(const TensorProto& proto) {
  const std::string where = "tensor '" + proto.name() + "'";
  if (proto.data_location() == TensorProto::EXTERNAL) {
    return Status::Unsupported(where + " keeps its data in an external file; save the model with its data embedded");
  }
  Shape shape(proto.dims().begin(), proto.dims().end());
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return Status::Corruption(where + " has a negative dimension");
    if (d > 0 && n > kMaxElements / d) return Status::Corruption(where + " claims more than 2^40 elements");
    n *= d;
  }
  const bool raw = proto.has_raw_data();
  // Checks that the stored element count (raw bytes / element size, or a typed field's size) is n.
  auto check_count = [&](int64_t stored, int64_t elem_size) -> Status {
    if (raw ? static_cast<int64_t>(proto.raw_data().size()) != n * elem_size : stored != n) {
      return Status::Corruption(
          where + " holds " + std::to_string(raw ? static_cast<int64_t>(proto.raw_data().size()) / elem_size : stored) +
          " elements but its dims " + shape_to_string(shape) + " need " + std::to_string(n));
    }
    return Status::Ok();
  };
  switch (proto.data_type()) {
    case TensorProto::FLOAT: {
      TP_RETURN_IF_ERROR(check_count(proto.float_data_size(), 4));
      auto bytes = std::make_shared<std::vector<std::byte>>(n * 4);
      if (n > 0) std::memcpy(bytes->data(), raw ? static_cast<const void*>(proto.raw_data().data()) : proto.float_data().data(),
                  n * 4);
      return ConstTensor{DType::kFloat32, shape, std::move(bytes)};
    }
    case TensorProto::DOUBLE: {
      TP_RETURN_IF_ERROR(check_count(proto.double_data_size(), 8));
      std::vector<double> v = raw ? from_raw<double>(proto.raw_data(), n)
                                  : std::vector<double>(proto.double_data().begin(), proto.double_data().end());
      return ConstTensor::from_floats(v, shape, DType::kFloat32);
    }
    case TensorProto::FLOAT16: {
      TP_RETURN_IF_ERROR(check_count(proto.int32_data_size(), 2));
      std::vector<uint16_t> v(n);
      if (raw) {
        v = from_raw<uint16_t>(proto.raw_data(), n);
      } else {
        for (int64_t i = 0; i < n; ++i) v[i] = static_cast<uint16_t>(proto.int32_data(i));
      }
      auto bytes = std::make_shared<std::vector<std::byte>>(n * 2);
      if (n > 0) std::memcpy(bytes->data(), v.data(), n * 2);
      return ConstTensor{DType::kFloat16, shape, std::move(bytes)};
    }
    case TensorProto::INT64: {
      TP_RETURN_IF_ERROR(check_count(proto.int64_data_size(), 8));
      std::vector<int64_t> v = raw ? from_raw<int64_t>(proto.raw_data(), n)
                                   : std::vector<int64_t>(proto.int64_data().begin(), proto.int64_data().end());
      return ConstTensor::from_ints(v, shape, DType::kInt64);
    }
    case TensorProto::INT32: {
      TP_RETURN_IF_ERROR(check_count(proto.int32_data_size(), 4));
      std::vector<int32_t> v = raw ? from_raw<int32_t>(proto.raw_data(), n)
                                   : std::vector<int32_t>(proto.int32_data().begin(), proto.int32_data().end());
      return ConstTensor::from_ints(std::vector<int64_t>(v.begin(), v.end()), shape, DType::kInt32);
    }
    case TensorProto::INT8: {
      TP_RETURN_IF_ERROR(check_count(proto.int32_data_size(), 1));
      std::vector<int64_t> v(n);
      for (int64_t i = 0; i < n; ++i) {
        v[i] = raw ? static_cast<int8_t>(proto.raw_data()[i]) : proto.int32_data(i);
      }
      return ConstTensor::from_ints(v, shape, DType::kInt8);
    }
    case TensorProto::UINT8:
    case TensorProto::BOOL: {
      TP_RETURN_IF_ERROR(check_count(proto.int32_data_size(), 1));
      std::vector<int64_t> v(n);
      for (int64_t i = 0; i < n; ++i) {
        v[i] = raw ? static_cast<uint8_t>(proto.raw_data()[i]) : proto.int32_data(i);
      }
      return ConstTensor::from_ints(v, shape, DType::kInt32);
    }
    case TensorProto::INT16: {
      TP_RETURN_IF_ERROR(check_count(proto.int32_data_size(), 2));
      std::vector<int64_t> v(n);
      if (raw) {
        std::vector<int16_t> r = from_raw<int16_t>(proto.raw_data(), n);
        v.assign(r.begin(), r.end());
      } else {
        v.assign(proto.int32_data().begin(), proto.int32_data().end());
      }
      return ConstTensor::from_ints(v, shape, DType::kInt32);
    }
    default:
      return Status::Unsupported(where + " has element type " +
                                 TensorProto::DataType_Name(static_cast<TensorProto::DataType>(proto.data_type())) +
                                 ", which tensorperf does not import");
  }
}

}  // namespace tensorperf::ir::onnx_import
