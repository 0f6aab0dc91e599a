#include "kernels/provider.h"

#include <stdexcept>

namespace tensorperf::kernels {

std::vector<ir::TensorType> kernel_input_types(const ir::Workload& w) {
  std::vector<ir::TensorType> types = w.inputs;
  for (const std::string& op : w.epilogue) {
    if (op == "bias") {
      // conv2d: one value per output channel (NCHW dim 1); dense/matmul: per last dim.
      int64_t n = w.op == ir::OpKind::kConv2d ? w.output.shape.at(1) : w.output.shape.back();
      types.push_back(ir::TensorType{{n}, w.output.dtype});
    } else if (op == "add" || op == "mul") {
      types.push_back(w.output);
    } else if (!ir::is_epilogue_op(op)) {
      throw std::logic_error("kernel_input_types: unknown epilogue op '" + op + "'");
    }
  }
  return types;
}

}  // namespace tensorperf::kernels
