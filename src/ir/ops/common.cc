#include <string>

#include "ir/ops/op_rules.h"

namespace tensorperf::ir::ops {

Status expect_rank(const TensorType& t, int64_t rank, const char* what) {
  if (t.rank() != rank)
    return Status::InvalidArgument(std::string(what) + " must have rank " + std::to_string(rank) + ", got " +
                                   t.to_string());
  return Status::Ok();
}

Status expect_same_dtype(const Types& in) {
  for (const auto& t : in)
    if (t.dtype != in.front().dtype)
      return Status::InvalidArgument("inputs mix element types " + in.front().to_string() + " and " + t.to_string());
  return Status::Ok();
}

Result<int64_t> normalize_axis(int64_t axis, int64_t rank) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    return Status::InvalidArgument("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return a;
}

Result<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      return Status::InvalidArgument("shapes " + shape_to_string(a) + " and " + shape_to_string(b) +
                                     " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

double elements(const TensorType& t) { return static_cast<double>(t.num_elements()); }

double flops_none(OpKind, const Types&, const Attrs&, const Types&) { return 0; }

}  // namespace tensorperf::ir::ops
