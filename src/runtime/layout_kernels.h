// Data movement of the layout ops the runtime cannot express as a view: transpose, slice (any step),
// and concat / split along an axis with more than one outer block. Element type agnostic (bytes),
// row-major, single-threaded (but the channels-last concat), no allocation.
#pragma once

#include <vector>

#include "base/status.h"
#include "ir/attrs.h"
#include "ir/op_kind.h"
#include "kernels/host_tensor.h"

namespace tensorperf::runtime {

// Runs layout op `op` (concat, split, slice or transpose) with attributes `attrs` from `inputs` to
// `outputs` (split has one output per part; the others one). REQUIRES: shapes as the op's type
// inference gives them. InvalidArgument for any other op.
Status run_layout_op(ir::OpKind op, const ir::Attrs& attrs, const std::vector<const kernels::HostTensor*>& inputs,
                     const std::vector<kernels::HostTensor*>& outputs);

// A concat along the channels (axis 1) of rank-4 tensors held channels last (dense NHWC, as a
// kernel's native layout may be): each pixel's channels of every input in turn. InvalidArgument
// when the shapes do not concatenate along axis 1. `threads` copy pixels at once (OpenMP).
Status run_channels_last_concat(const std::vector<const kernels::HostTensor*>& inputs, kernels::HostTensor& output,
                                int threads = 1);

// `axis` counted from the front: a negative one from the back of `rank` dimensions.
int64_t normalized_axis(int64_t axis, int64_t rank);

// Reshape and flatten: the output is the input's memory under another shape (a view, never a copy).
bool is_alias_layout(ir::OpKind op);

// Product of the dimensions before `axis` (the number of separate blocks a concat or split along
// `axis` moves). When it is 1, every part is one contiguous range of the whole.
int64_t outer_extent(const ir::Shape& shape, int64_t axis);

}  // namespace tensorperf::runtime
