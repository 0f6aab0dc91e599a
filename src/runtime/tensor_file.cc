#include "runtime/tensor_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

#include "base/atomic_file.h"
#include "base/read_file.h"

namespace tensorperf::runtime {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string_view descr_of(ir::DType t) {
  switch (t) {
    case ir::DType::kFloat32: return "<f4";
    case ir::DType::kInt32: return "<i4";
    case ir::DType::kInt64: return "<i8";
    case ir::DType::kInt8: return "|i1";
    case ir::DType::kFloat16: return "<f2";
  }
  return "<f4";
}

}  // namespace

std::string npy_bytes(const ir::TensorData& t) {
  std::string shape = "(";
  for (size_t i = 0; i < t.type.shape.size(); ++i) shape += std::to_string(t.type.shape[i]) + ", ";
  if (t.type.shape.size() > 1) shape.resize(shape.size() - 2);
  else if (t.type.shape.size() == 1) shape.resize(shape.size() - 1);
  shape += ")";
  std::string header = "{'descr': '" + std::string(descr_of(t.type.dtype)) + "', 'fortran_order': False, 'shape': " +
                       shape + ", }";
  // Magic (6) + version (2) + length (2) + header, padded with spaces to a multiple of 64, then '\n'.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
  return out;
}

Result<ir::TensorData> parse_npy(std::string_view bytes, const std::string& name) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != std::string_view("\x93NUMPY", 6))
    return Status::Corruption(name + ": not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len = 0, at = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
    at = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return Status::Corruption(name + ": truncated .npy header");
    for (int i = 0; i < 4; ++i) header_len |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    at = 12;
  } else {
    return Status::Unsupported(name + ": .npy format version " + std::to_string(major) + " (known: 1, 2, 3)");
  }
  if (bytes.size() < at + header_len) return Status::Corruption(name + ": truncated .npy header");
  const std::string header(bytes.substr(at, header_len));
  std::smatch m;
  if (!std::regex_search(header, m, std::regex("'descr'\\s*:\\s*'([^']*)'")))
    return Status::Corruption(name + ": .npy header has no descr");
  const std::string descr = m[1];
  ir::TensorData t;
  if (descr == "<f4") t.type.dtype = ir::DType::kFloat32;
  else if (descr == "<i4") t.type.dtype = ir::DType::kInt32;
  else if (descr == "<i8") t.type.dtype = ir::DType::kInt64;
  else return Status::Unsupported(name + ": .npy element type '" + descr + "' (read: <f4, <i4, <i8)");
  if (std::regex_search(header, m, std::regex("'fortran_order'\\s*:\\s*True")))
    return Status::Unsupported(name + ": .npy in Fortran order; save it in C order (numpy.ascontiguousarray)");
  if (!std::regex_search(header, m, std::regex("'shape'\\s*:\\s*\\(([^)]*)\\)")))
    return Status::Corruption(name + ": .npy header has no shape");
  const std::string dims = m[1];
  std::regex number("\\d+");
  for (auto it = std::sregex_iterator(dims.begin(), dims.end(), number); it != std::sregex_iterator(); ++it) {
    const std::string d = it->str();
    if (d.size() > 12) return Status::Corruption(name + ": .npy dimension " + d + " is too large");
    t.type.shape.push_back(std::stoll(d));
  }
  int64_t n = 1;
  for (int64_t d : t.type.shape) {
    if (d > 0 && n > (int64_t{1} << 40) / d) return Status::Corruption(name + ": .npy shape is too large");
    n *= d;
  }
  const size_t need = static_cast<size_t>(n * ir::dtype_bytes(t.type.dtype));
  const size_t have = bytes.size() - at - header_len;
  if (have != need)
    return Status::Corruption(name + ": .npy data has " + std::to_string(have) + " bytes; shape " +
                              ir::shape_to_string(t.type.shape) + " needs " + std::to_string(need));
  t.bytes.resize(need);
  if (need > 0) std::memcpy(t.bytes.data(), bytes.data() + at + header_len, need);
  return t;
}

Result<ir::TensorData> read_tensor_file(const std::string& path) {
  if (ends_with(path, ".pb")) return ir::read_onnx_tensor(path);
  if (!ends_with(path, ".npy"))
    return Status::InvalidArgument(path + ": unknown tensor file type (use .npy or an ONNX TensorProto .pb)");
  TP_ASSIGN_OR_RETURN(std::string bytes, read_file(path));
  return parse_npy(bytes, path);
}

Status write_tensor_file(const std::string& path, const ir::TensorData& t) {
  std::string bytes;
  if (ends_with(path, ".npy")) bytes = npy_bytes(t);
  else if (ends_with(path, ".pb")) bytes = ir::onnx_tensor_bytes(t);
  else return Status::InvalidArgument(path + ": unknown tensor file type (use .npy or .pb)");
  TP_ASSIGN_OR_RETURN(AtomicFile f, AtomicFile::create(path));
  f.stream().write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return f.commit();
}

}  // namespace tensorperf::runtime
