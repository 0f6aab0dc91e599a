// A workload (a *task*): one operator instance as kernels see it: op kind, the types of its main
// inputs (data and weight; bias and residual are implied by the epilogue), attributes, the output
// type and the fused epilogue. Two workloads with the same key are the same kernel problem.
//
// Key: "<op>|<input types ;-joined>|<attrs>|<epilogue +-joined>", e.g.
//   conv2d|float32[1,64,56,56];float32[64,64,3,3]|dilations=[1,1];groups=1;pads=[1,1,1,1];strides=[1,1]|bias+relu
// Epilogue ops, applied in order to the main op's output: "bias" (per output channel / last dim),
// "add" (a residual tensor of the output's type), "mul" (same), and the activations
// "relu", "relu6", "sigmoid", "tanh", "gelu". The key format reaches the database: change it only
// with a migration.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "ir/attrs.h"
#include "ir/op_kind.h"
#include "ir/tensor_type.h"

namespace tensorperf::ir {

struct Workload {
  OpKind op = OpKind::kConv2d;
  std::vector<TensorType> inputs;  // main inputs: conv2d/dense (x, w), matmul (a, b), others (x...)
  Attrs attrs;
  std::vector<std::string> epilogue;
  TensorType output;  // derived from inputs+attrs; not part of the key

  std::string key() const;
  // FLOPs of one instance of the main op (a multiply-add counts 2). The epilogue is left out, as in
  // the published counts models are compared with; epilogue_flops() has it.
  double flops() const;
  // One per output element per epilogue op.
  double epilogue_flops() const;
  bool operator==(const Workload& o) const { return key() == o.key(); }
};

// Parses a key back into a workload (output type re-inferred). Error on any malformed part.
Result<Workload> parse_workload_key(std::string_view key);
// Is `name` a known epilogue op?
bool is_epilogue_op(std::string_view name);

}  // namespace tensorperf::ir
