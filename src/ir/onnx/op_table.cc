#include "ir/onnx/op_table.h"

#include <array>

#include "ir/onnx/converters.h"

namespace tensorperf::ir::onnx_import {
namespace {

struct Entry {
  std::string_view op_type;
  Converter convert;
};

// Default-domain operators, sorted by op type.
constexpr std::array kOnnxOps = {
    Entry{"Add", convert_add},
    Entry{"AveragePool", convert_average_pool},
    Entry{"BatchNormalization", convert_batch_normalization},
    Entry{"Cast", convert_cast},
    Entry{"Clip", convert_clip},
    Entry{"Concat", convert_concat},
    Entry{"Constant", convert_constant},
    Entry{"ConstantOfShape", convert_constant_of_shape},
    Entry{"Conv", convert_conv},
    Entry{"Div", convert_div},
    Entry{"Dropout", convert_dropout},
    Entry{"Equal", convert_equal},
    Entry{"Expand", convert_expand},
    Entry{"Flatten", convert_flatten},
    Entry{"Gather", convert_gather},
    Entry{"Gemm", convert_gemm},
    Entry{"GlobalAveragePool", convert_global_average_pool},
    Entry{"HardSigmoid", convert_hard_sigmoid},
    Entry{"HardSwish", convert_hard_swish},
    Entry{"Identity", convert_identity},
    Entry{"LayerNormalization", convert_layer_normalization},
    Entry{"MatMul", convert_matmul},
    Entry{"MaxPool", convert_max_pool},
    Entry{"Mod", convert_mod},
    Entry{"Mul", convert_mul},
    Entry{"Not", convert_not},
    Entry{"Pad", convert_pad},
    Entry{"Pow", convert_pow},
    Entry{"Range", convert_range},
    Entry{"ReduceMean", convert_reduce_mean},
    Entry{"Relu", convert_relu},
    Entry{"Reshape", convert_reshape},
    Entry{"ScatterND", convert_scatter_nd},
    Entry{"Shape", convert_shape},
    Entry{"Sigmoid", convert_sigmoid},
    Entry{"Slice", convert_slice},
    Entry{"Softmax", convert_softmax},
    Entry{"Split", convert_split},
    Entry{"Squeeze", convert_squeeze},
    Entry{"Sub", convert_sub},
    Entry{"Tanh", convert_tanh},
    Entry{"Transpose", convert_transpose},
    Entry{"Unsqueeze", convert_unsqueeze},
    Entry{"Where", convert_where},
};

// Nodes made by the importer's pattern passes.
constexpr std::array kInternalOps = {
    Entry{"Gelu", convert_gelu},
    Entry{"LayerNormalization", convert_layer_normalization},
};

Converter lookup(const auto& table, std::string_view op_type) {
  for (const Entry& e : table) {
    if (e.op_type == op_type) return e.convert;
  }
  return nullptr;
}

}  // namespace

Converter find_converter(std::string_view domain, std::string_view op_type) {
  if (domain.empty() || domain == "ai.onnx") return lookup(kOnnxOps, op_type);
  if (domain == kInternalDomain) return lookup(kInternalOps, op_type);
  return nullptr;
}

}  // namespace tensorperf::ir::onnx_import
