// Data movement: concat, split, slice (ONNX semantics), reshape (0 copies, -1 infers), transpose,
// flatten. None computes anything (0 FLOPs).
#include <algorithm>
#include <numeric>
#include <string>

#include "ir/ops/op_rules.h"

namespace tensorperf::ir::ops {

namespace {

Result<Types> infer_concat(const Types& in, const Attrs& attrs) {
  TP_RETURN_IF_ERROR(expect_same_dtype(in));
  TP_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(attrs.get_int("axis", 1), in[0].rank()));
  Shape out = in[0].shape;
  for (size_t i = 1; i < in.size(); ++i) {
    const Shape& s = in[i].shape;
    bool fits = s.size() == out.size();
    for (size_t d = 0; fits && d < s.size(); ++d)
      if (static_cast<int64_t>(d) != axis && s[d] != out[d]) fits = false;
    if (!fits)
      return Status::InvalidArgument("concat input " + std::to_string(i) + " " + in[i].to_string() +
                                     " does not match " + in[0].to_string() + " outside axis " + std::to_string(axis));
    out[axis] += s[axis];
  }
  return Types{TensorType{out, in[0].dtype}};
}

Result<Types> infer_split(const Types& in, const Attrs& attrs, int num_outputs) {
  TP_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(attrs.get_int("axis", 0), in[0].rank()));
  int64_t dim = in[0].shape[axis];
  std::vector<int64_t> sizes = attrs.get_ints("sizes", {});
  if (sizes.empty()) {
    if (num_outputs < 1 || dim % num_outputs != 0)
      return Status::InvalidArgument("split of " + std::to_string(dim) + " into " + std::to_string(num_outputs) +
                                     " equal parts");
    sizes.assign(num_outputs, dim / num_outputs);
  }
  if (static_cast<int>(sizes.size()) != num_outputs)
    return Status::InvalidArgument("split sizes has " + std::to_string(sizes.size()) + " entries for " +
                                   std::to_string(num_outputs) + " outputs");
  if (std::accumulate(sizes.begin(), sizes.end(), int64_t{0}) != dim)
    return Status::InvalidArgument("split sizes " + shape_to_string(sizes) + " do not add up to " + std::to_string(dim));
  Types out;
  for (int64_t s : sizes) {
    TensorType t = in[0];
    t.shape[axis] = s;
    out.push_back(t);
  }
  return out;
}

Result<Types> infer_slice(const Types& in, const Attrs& attrs) {
  auto starts = attrs.get_ints("starts", {});
  auto ends = attrs.get_ints("ends", {});
  std::vector<int64_t> axes = attrs.get_ints("axes", {});
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  auto steps = attrs.get_ints("steps", std::vector<int64_t>(starts.size(), 1));
  if (starts.size() != ends.size() || starts.size() != axes.size() || starts.size() != steps.size())
    return Status::InvalidArgument("slice starts, ends, axes and steps must have the same length");
  TensorType out = in[0];
  for (size_t i = 0; i < starts.size(); ++i) {
    TP_ASSIGN_OR_RETURN(int64_t a, normalize_axis(axes[i], in[0].rank()));
    int64_t dim = in[0].shape[a];
    int64_t step = steps[i];
    if (step == 0) return Status::InvalidArgument("slice step 0");
    auto clamp = [&](int64_t v, int64_t lo, int64_t hi) { return std::clamp(v < 0 ? v + dim : v, lo, hi); };
    int64_t b, e;
    if (step > 0) {
      b = clamp(starts[i], 0, dim);
      e = clamp(ends[i], 0, dim);
      out.shape[a] = e > b ? (e - b + step - 1) / step : 0;
    } else {
      b = clamp(starts[i], -1, dim - 1);
      e = clamp(ends[i], -1, dim - 1);
      out.shape[a] = b > e ? (b - e - step - 1) / -step : 0;
    }
  }
  return Types{out};
}

Result<Types> infer_reshape(const Types& in, const Attrs& attrs) {
  if (!attrs.has("shape")) return Status::InvalidArgument("attribute shape is required");
  Shape target = attrs.get_ints("shape", {});
  int64_t known = 1;
  int infer_at = -1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == 0) {
      if (i >= in[0].shape.size()) return Status::InvalidArgument("reshape 0 at a dimension the input lacks");
      target[i] = in[0].shape[i];
    }
    if (target[i] == -1) {
      if (infer_at >= 0) return Status::InvalidArgument("reshape shape has more than one -1");
      infer_at = static_cast<int>(i);
    } else if (target[i] < 0) {
      return Status::InvalidArgument("reshape shape " + shape_to_string(attrs.get_ints("shape", {})) + " is invalid");
    } else {
      known *= target[i];
    }
  }
  int64_t total = in[0].num_elements();
  if (infer_at >= 0) {
    if (known == 0 || total % known != 0)
      return Status::InvalidArgument("cannot reshape " + in[0].to_string() + " to " +
                                     shape_to_string(attrs.get_ints("shape", {})));
    target[infer_at] = total / known;
  } else if (known != total) {
    return Status::InvalidArgument("cannot reshape " + in[0].to_string() + " (" + std::to_string(total) +
                                   " elements) to " + shape_to_string(target));
  }
  return Types{TensorType{target, in[0].dtype}};
}

Result<Types> infer_transpose(const Types& in, const Attrs& attrs) {
  int64_t rank = in[0].rank();
  std::vector<int64_t> perm = attrs.get_ints("perm", {});
  if (perm.empty())
    for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < rank; ++i)
    if (static_cast<int64_t>(sorted.size()) != rank || sorted[i] != i)
      return Status::InvalidArgument("perm " + shape_to_string(perm) + " is not a permutation of rank " +
                                     std::to_string(rank));
  TensorType out = in[0];
  for (int64_t i = 0; i < rank; ++i) out.shape[i] = in[0].shape[perm[i]];
  return Types{out};
}

Result<Types> infer_flatten(const Types& in, const Attrs& attrs) {
  int64_t rank = in[0].rank();
  int64_t axis = attrs.get_int("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) return Status::InvalidArgument("flatten axis out of range");
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) *= in[0].shape[i];
  return Types{TensorType{{outer, inner}, in[0].dtype}};
}

}  // namespace

Result<Types> infer_layout(OpKind op, const Types& in, const Attrs& attrs, int num_outputs) {
  switch (op) {
    case OpKind::kConcat: return infer_concat(in, attrs);
    case OpKind::kSplit: return infer_split(in, attrs, num_outputs);
    case OpKind::kSlice: return infer_slice(in, attrs);
    case OpKind::kReshape: return infer_reshape(in, attrs);
    case OpKind::kTranspose: return infer_transpose(in, attrs);
    case OpKind::kFlatten: return infer_flatten(in, attrs);
    default: return Status::Internal(std::string(op_name(op)) + " is not a layout op");
  }
}

}  // namespace tensorperf::ir::ops
