#include "runtime/layout_kernels.h"

#include <algorithm>
#include <cstring>

namespace tensorperf::runtime {
namespace {

using kernels::HostTensor;

int64_t inner_extent(const ir::Shape& shape, int64_t axis) {
  int64_t n = 1;
  for (size_t d = axis + 1; d < shape.size(); ++d) n *= shape[d];
  return n;
}

// Concat (to_parts=false) or split (true): parts[i] is a block of extent parts[i].shape[axis] along
// axis of `whole`.
void move_blocks(std::byte* whole, const ir::Shape& whole_shape, int64_t axis, const std::vector<std::byte*>& parts,
                 const std::vector<const ir::Shape*>& part_shapes, size_t elem, bool to_parts) {
  const int64_t outer = outer_extent(whole_shape, axis);
  const int64_t inner = inner_extent(whole_shape, axis) * static_cast<int64_t>(elem);
  const int64_t whole_row = whole_shape[axis] * inner;
  int64_t at = 0;
  for (size_t p = 0; p < parts.size(); ++p) {
    const int64_t row = (*part_shapes[p])[axis] * inner;
    for (int64_t o = 0; o < outer; ++o) {
      std::byte* w = whole + o * whole_row + at;
      std::byte* q = parts[p] + o * row;
      if (to_parts) std::memcpy(q, w, row);
      else std::memcpy(w, q, row);
    }
    at += row;
  }
}

// out[i0..ik] = in[start[perm[d]] + i_d * step[perm[d]] along input dim perm[d]].
void gather(const std::byte* in, const ir::Shape& in_shape, std::byte* out, const ir::Shape& out_shape,
            const std::vector<int64_t>& perm, const std::vector<int64_t>& start, const std::vector<int64_t>& step,
            size_t elem) {
  const size_t rank = out_shape.size();
  int64_t total = 1;
  for (int64_t d : out_shape) total *= d;
  if (total == 0) return;
  std::vector<int64_t> in_stride(rank, 1);
  for (size_t d = rank; d-- > 1;) in_stride[d - 1] = in_stride[d] * in_shape[d];
  // Per output dim: the input offset (elements) one step moves, and where index 0 starts.
  std::vector<int64_t> move(rank);
  int64_t base = 0;
  for (size_t d = 0; d < rank; ++d) {
    move[d] = in_stride[perm[d]] * step[perm[d]];
    base += start[d] * in_stride[d];
  }
  if (rank == 0) {
    std::memcpy(out, in, elem);
    return;
  }
  const int64_t inner = out_shape[rank - 1];
  const bool contiguous = move[rank - 1] == 1;
  std::vector<int64_t> index(rank, 0);
  int64_t src = base;
  for (int64_t done = 0; done < total; done += inner) {
    if (contiguous) {
      std::memcpy(out, in + src * elem, inner * elem);
      out += inner * elem;
    } else {
      int64_t s = src;
      for (int64_t i = 0; i < inner; ++i, s += move[rank - 1], out += elem) std::memcpy(out, in + s * elem, elem);
    }
    // Advance the outer index (all dims but the last), odometer style.
    for (size_t d = rank - 1; d-- > 0;) {
      src += move[d];
      if (++index[d] < out_shape[d]) break;
      src -= move[d] * out_shape[d];
      index[d] = 0;
    }
  }
}

}  // namespace

int64_t normalized_axis(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }

bool is_alias_layout(ir::OpKind op) { return op == ir::OpKind::kReshape || op == ir::OpKind::kFlatten; }

int64_t outer_extent(const ir::Shape& shape, int64_t axis) {
  int64_t n = 1;
  for (int64_t d = 0; d < axis; ++d) n *= shape[d];
  return n;
}

Status run_channels_last_concat(const std::vector<const HostTensor*>& inputs, HostTensor& output, int threads) {
  const ir::TensorType& out = output.type();
  if (inputs.empty() || out.rank() != 4) return Status::InvalidArgument("a channels-last concat joins rank-4 tensors");
  if (threads < 1) return Status::InvalidArgument("a channels-last concat needs at least one thread");
  const int64_t pixels = out.shape[0] * out.shape[2] * out.shape[3];
  const int64_t elem = ir::dtype_bytes(out.dtype);
  std::vector<const std::byte*> parts;
  std::vector<int64_t> row;  // bytes of one pixel's channels, per part
  int64_t channels = 0;
  for (const HostTensor* t : inputs) {
    const ir::Shape& sh = t->type().shape;
    if (sh.size() != 4 || sh[0] != out.shape[0] || sh[2] != out.shape[2] || sh[3] != out.shape[3] ||
        t->type().dtype != out.dtype)
      return Status::InvalidArgument("a channels-last concat's parts must match its output but for channels");
    parts.push_back(t->bytes());
    row.push_back(sh[1] * elem);
    channels += sh[1];
  }
  if (channels != out.shape[1])
    return Status::InvalidArgument("a channels-last concat's parts must add up to its channels");
  std::byte* to = output.bytes();
  const int64_t out_row = channels * elem;
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (int64_t p = 0; p < pixels; ++p) {
    std::byte* at = to + p * out_row;
    for (size_t k = 0; k < parts.size(); ++k) {
      std::memcpy(at, parts[k] + p * row[k], static_cast<size_t>(row[k]));
      at += row[k];
    }
  }
  return Status::Ok();
}

Status run_layout_op(ir::OpKind op, const ir::Attrs& attrs, const std::vector<const HostTensor*>& inputs,
                     const std::vector<HostTensor*>& outputs) {
  if (inputs.empty() || outputs.empty()) return Status::InvalidArgument("layout op without inputs or outputs");
  const ir::TensorType& in0 = inputs[0]->type();
  const size_t elem = static_cast<size_t>(ir::dtype_bytes(in0.dtype));
  const int64_t rank = in0.rank();
  switch (op) {
    case ir::OpKind::kConcat: {
      const int64_t axis = normalized_axis(attrs.get_int("axis", 1), rank);
      std::vector<std::byte*> parts;
      std::vector<const ir::Shape*> shapes;
      for (const HostTensor* t : inputs) {
        parts.push_back(const_cast<std::byte*>(t->bytes()));
        shapes.push_back(&t->type().shape);
      }
      move_blocks(outputs[0]->bytes(), outputs[0]->type().shape, axis, parts, shapes, elem, false);
      return Status::Ok();
    }
    case ir::OpKind::kSplit: {
      const int64_t axis = normalized_axis(attrs.get_int("axis", 0), rank);
      std::vector<std::byte*> parts;
      std::vector<const ir::Shape*> shapes;
      for (HostTensor* t : outputs) {
        parts.push_back(t->bytes());
        shapes.push_back(&t->type().shape);
      }
      move_blocks(const_cast<std::byte*>(inputs[0]->bytes()), in0.shape, axis, parts, shapes, elem, true);
      return Status::Ok();
    }
    case ir::OpKind::kTranspose: {
      std::vector<int64_t> perm = attrs.get_ints("perm", {});
      if (perm.empty())
        for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
      gather(inputs[0]->bytes(), in0.shape, outputs[0]->bytes(), outputs[0]->type().shape, perm,
             std::vector<int64_t>(rank, 0), std::vector<int64_t>(rank, 1), elem);
      return Status::Ok();
    }
    case ir::OpKind::kSlice: {
      auto starts = attrs.get_ints("starts", {});
      std::vector<int64_t> axes = attrs.get_ints("axes", {});
      if (axes.empty())
        for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
      auto steps = attrs.get_ints("steps", std::vector<int64_t>(starts.size(), 1));
      std::vector<int64_t> perm(rank), start(rank, 0), step(rank, 1);
      for (int64_t d = 0; d < rank; ++d) perm[d] = d;
      for (size_t i = 0; i < starts.size(); ++i) {
        const int64_t a = normalized_axis(axes[i], rank);
        const int64_t dim = in0.shape[a];
        int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
        s = steps[i] > 0 ? std::clamp<int64_t>(s, 0, dim) : std::clamp<int64_t>(s, -1, dim - 1);
        start[a] = s;
        step[a] = steps[i];
      }
      gather(inputs[0]->bytes(), in0.shape, outputs[0]->bytes(), outputs[0]->type().shape, perm, start, step, elem);
      return Status::Ok();
    }
    default:
      return Status::InvalidArgument(std::string(ir::op_name(op)) + " is not a copying layout op");
  }
}

}  // namespace tensorperf::runtime
