#include "ir/onnx/onnx_tensor_file.h"

#include <onnx/onnx_pb.h>


#include "base/read_file.h"
#include "ir/onnx/tensor_proto.h"

namespace tensorperf::ir {

Result<TensorData> read_onnx_tensor(const std::string& path) {
  TP_ASSIGN_OR_RETURN(std::string bytes, read_file(path));
  onnx::TensorProto proto;
  if (bytes.size() > static_cast<size_t>(INT32_MAX) || !proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return Status::Corruption(path + ": not an ONNX TensorProto");
  Result<onnx_import::ConstTensor> t = onnx_import::tensor_from_proto(proto);
  if (!t.ok()) return t.status().WithContext(path);
  TensorData out;
  out.name = proto.name();
  out.type = t->type();
  if (t->data) out.bytes = *t->data;
  return out;
}

std::string onnx_tensor_bytes(const TensorData& t) {
  onnx::TensorProto proto;
  proto.set_name(t.name);
  for (int64_t d : t.type.shape) proto.add_dims(d);
  switch (t.type.dtype) {
    case DType::kFloat32: proto.set_data_type(onnx::TensorProto::FLOAT); break;
    case DType::kInt32: proto.set_data_type(onnx::TensorProto::INT32); break;
    case DType::kInt64: proto.set_data_type(onnx::TensorProto::INT64); break;
    case DType::kInt8: proto.set_data_type(onnx::TensorProto::INT8); break;
    default: proto.set_data_type(onnx::TensorProto::FLOAT16); break;
  }
  proto.set_raw_data(std::string(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size()));
  return proto.SerializeAsString();
}

}  // namespace tensorperf::ir
