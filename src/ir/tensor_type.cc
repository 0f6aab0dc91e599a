#include "ir/tensor_type.h"

#include <algorithm>
#include <charconv>
#include <string>

namespace tensorperf::ir {

int64_t TensorType::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Status check_size(const TensorType& t, std::string_view what) {
  int64_t n = 1;
  bool over = false;
  for (int64_t d : t.shape) {
    if (d < 0 || d > kMaxDimension)
      return Status::InvalidArgument(std::string(what) + " " + shape_to_string(t.shape) + " has a dimension of " +
                                     std::to_string(d) + "; dimensions must be 0 to " + std::to_string(kMaxDimension));
    over = over || __builtin_mul_overflow(n, d, &n) || n > kMaxTensorElements;
  }
  if (over && std::find(t.shape.begin(), t.shape.end(), 0) == t.shape.end())
    return Status::InvalidArgument(std::string(what) + " " + t.to_string() + " has more than " +
                                   std::to_string(kMaxTensorElements) + " elements, the most a tensor may have");
  return Status::Ok();
}

std::string shape_to_string(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::string TensorType::to_string() const { return std::string(dtype_name(dtype)) + shape_to_string(shape); }

Result<TensorType> parse_tensor_type(std::string_view s) {
  auto bad = [&](const char* why) {
    return Status::InvalidArgument("malformed tensor type \"" + std::string(s) + "\": " + why);
  };
  size_t open = s.find('[');
  if (open == std::string_view::npos || s.empty() || s.back() != ']') return bad("expected dtype[d0,d1,...]");
  TP_ASSIGN_OR_RETURN(DType dtype, parse_dtype(s.substr(0, open)));
  TensorType t{{}, dtype};
  std::string_view dims = s.substr(open + 1, s.size() - open - 2);
  while (!dims.empty()) {
    size_t comma = dims.find(',');
    std::string_view d = dims.substr(0, comma);
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(d.data(), d.data() + d.size(), v);
    if (ec != std::errc() || ptr != d.data() + d.size() || v < 0) return bad("a dimension is not a non-negative integer");
    if (v > kMaxDimension) return bad("a dimension is larger than 2^31 - 1");
    t.shape.push_back(v);
    if (comma == std::string_view::npos) break;
    dims.remove_prefix(comma + 1);
    if (dims.empty()) return bad("trailing comma");
  }
  TP_RETURN_IF_ERROR(check_size(t, "tensor type"));
  return t;
}

}  // namespace tensorperf::ir
