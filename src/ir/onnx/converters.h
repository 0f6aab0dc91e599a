// Every converter of the op table, one family per file (convert_<family>.cc). Private to src/ir/onnx/.
#pragma once

#include "base/status.h"
#include "ir/onnx/import_context.h"
#include "ir/onnx/onnx_node.h"

namespace tensorperf::ir::onnx_import {

// convert_conv.cc
Status convert_conv(const OnnxNode& node, ImportContext& ctx);
// convert_gemm.cc
Status convert_gemm(const OnnxNode& node, ImportContext& ctx);
Status convert_matmul(const OnnxNode& node, ImportContext& ctx);
// convert_pool.cc
Status convert_max_pool(const OnnxNode& node, ImportContext& ctx);
Status convert_average_pool(const OnnxNode& node, ImportContext& ctx);
Status convert_global_average_pool(const OnnxNode& node, ImportContext& ctx);
Status convert_reduce_mean(const OnnxNode& node, ImportContext& ctx);
Status convert_pad(const OnnxNode& node, ImportContext& ctx);
// convert_elementwise.cc
Status convert_add(const OnnxNode& node, ImportContext& ctx);
Status convert_sub(const OnnxNode& node, ImportContext& ctx);
Status convert_mul(const OnnxNode& node, ImportContext& ctx);
Status convert_div(const OnnxNode& node, ImportContext& ctx);
// On constants only (shape arithmetic; bools are int32 0/1): Equal, Not, Where, Mod, Pow, Range,
// Expand.
Status convert_equal(const OnnxNode& node, ImportContext& ctx);
Status convert_not(const OnnxNode& node, ImportContext& ctx);
Status convert_where(const OnnxNode& node, ImportContext& ctx);
Status convert_mod(const OnnxNode& node, ImportContext& ctx);
Status convert_pow(const OnnxNode& node, ImportContext& ctx);
Status convert_range(const OnnxNode& node, ImportContext& ctx);
Status convert_expand(const OnnxNode& node, ImportContext& ctx);
Status convert_relu(const OnnxNode& node, ImportContext& ctx);
Status convert_sigmoid(const OnnxNode& node, ImportContext& ctx);
Status convert_hard_sigmoid(const OnnxNode& node, ImportContext& ctx);
Status convert_hard_swish(const OnnxNode& node, ImportContext& ctx);
Status convert_tanh(const OnnxNode& node, ImportContext& ctx);
Status convert_clip(const OnnxNode& node, ImportContext& ctx);
Status convert_gelu(const OnnxNode& node, ImportContext& ctx);
// convert_normalization.cc
Status convert_batch_normalization(const OnnxNode& node, ImportContext& ctx);
Status convert_layer_normalization(const OnnxNode& node, ImportContext& ctx);
Status convert_softmax(const OnnxNode& node, ImportContext& ctx);
// convert_layout.cc
Status convert_concat(const OnnxNode& node, ImportContext& ctx);
Status convert_split(const OnnxNode& node, ImportContext& ctx);
Status convert_slice(const OnnxNode& node, ImportContext& ctx);
Status convert_reshape(const OnnxNode& node, ImportContext& ctx);
Status convert_transpose(const OnnxNode& node, ImportContext& ctx);
Status convert_flatten(const OnnxNode& node, ImportContext& ctx);
Status convert_squeeze(const OnnxNode& node, ImportContext& ctx);
Status convert_scatter_nd(const OnnxNode& node, ImportContext& ctx);
Status convert_unsqueeze(const OnnxNode& node, ImportContext& ctx);
Status convert_identity(const OnnxNode& node, ImportContext& ctx);
Status convert_dropout(const OnnxNode& node, ImportContext& ctx);
// convert_constant.cc: constant sources and the shape arithmetic exporters emit around Reshape.
Status convert_constant(const OnnxNode& node, ImportContext& ctx);
Status convert_shape(const OnnxNode& node, ImportContext& ctx);
Status convert_gather(const OnnxNode& node, ImportContext& ctx);
Status convert_cast(const OnnxNode& node, ImportContext& ctx);
Status convert_constant_of_shape(const OnnxNode& node, ImportContext& ctx);
// Gather of one index along `axis` of the computed input 0: an IR slice of that row, then a reshape
// that drops the axis unless `keep_axis` (a 1-element index tensor rather than a scalar).
Status gather_one(const OnnxNode& node, ImportContext& ctx, int64_t axis, int64_t index, bool keep_axis);

}  // namespace tensorperf::ir::onnx_import
