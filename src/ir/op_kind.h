// Every operator kind the IR knows: one list, with its wire name and category. The names reach keys,
// JSON and the database: never rename one. Per-kind semantics (inputs, attributes, shape inference,
// FLOPs) live in src/ir/ops/, one file per family, gathered in one registry (op_registry.h).
#pragma once

#include <string_view>

#include "base/status.h"

namespace tensorperf::ir {

// Inputs and attributes, per kind (images are NCHW, weights OIHW; ints are int64 lists unless noted):
//  conv2d          x[N,C,H,W], w[O,C/groups,KH,KW], (bias[O]); strides[2], pads[4]=(top,left,bottom,right),
//                  dilations[2], groups (int)
//  dense           x[..., K], w[M, K], (bias[M])  -> [..., M]        (torch Linear, ONNX Gemm transB=1)
//  matmul          a[M,K], b[K,N] -> [M,N]; attrs transpose_a, transpose_b (int 0/1)
//  batch_matmul    a[B...,M,K], b[B...,K,N] -> [B...,M,N]; leading dims broadcast; transpose_a/_b
//  max_pool2d      x; kernel[2], strides[2], pads[4], dilations[2], ceil_mode (int)
//  avg_pool2d      x; kernel[2], strides[2], pads[4], ceil_mode, count_include_pad (int)
//  global_avg_pool2d  x[N,C,H,W] -> [N,C,1,1]
//  add, mul        a, b with numpy broadcasting
//  relu, relu6, sigmoid, tanh, gelu   x (elementwise)
//  batch_norm      x[N,C,...], scale[C], bias[C], mean[C], var[C]; epsilon (float)
//  concat          x0..xn; axis (int)
//  split           x; axis (int), sizes[k] -> k outputs
//  slice           x; starts, ends, axes, steps (ONNX semantics, ends clamped)
//  reshape         x; shape (0 copies the input dim, -1 is inferred)
//  transpose       x; perm
//  flatten         x; axis (int, default 1) -> 2-D
//  softmax         x; axis (int, default -1)
//  layer_norm      x, gamma, beta; axis (int, default -1: normalise over axis..end), epsilon (float)
enum class OpKind {
  kConv2d,
  kDense,
  kMatmul,
  kBatchMatmul,
  kMaxPool2d,
  kAvgPool2d,
  kGlobalAvgPool2d,
  kAdd,
  kMul,
  kRelu,
  kRelu6,
  kSigmoid,
  kTanh,
  kGelu,
  kBatchNorm,
  kConcat,
  kSplit,
  kSlice,
  kReshape,
  kTranspose,
  kFlatten,
  kSoftmax,
  kLayerNorm,
};

// How an op takes part in workload extraction (docs/workloads.md).
enum class OpCategory {
  kAnchor,       // conv2d, dense, matmul, batch_matmul: a tunable workload that absorbs an epilogue
  kReduction,    // pools, softmax, layer_norm: a workload of its own
  kElementwise,  // add, mul, activations, batch_norm: fused into an anchor's epilogue when possible
  kLayout,       // concat, split, slice, reshape, transpose, flatten: data movement, not a workload
};

std::string_view op_name(OpKind op);  // "conv2d", "dense", "max_pool2d", ...
Result<OpKind> parse_op(std::string_view name);
OpCategory op_category(OpKind op);

}  // namespace tensorperf::ir
