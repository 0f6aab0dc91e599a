#include "test_workloads.h"

#include <stdexcept>

#include "ir/op_registry.h"
#include "kernels/provider.h"

namespace tensorperf::kernels::testing {

using ir::OpKind;

ir::Workload make_workload(OpKind op, std::vector<ir::Shape> inputs, ir::Attrs attrs, std::vector<std::string> epilogue) {
  ir::Workload w;
  w.op = op;
  for (auto& s : inputs) w.inputs.push_back(ir::TensorType{s, ir::DType::kFloat32});
  w.attrs = std::move(attrs);
  w.epilogue = std::move(epilogue);
  auto out = ir::infer_op(op, w.inputs, w.attrs, 1);
  if (!out.ok()) throw std::logic_error("make_workload: " + out.status().message());
  w.output = out.value()[0];
  return w;
}

std::vector<HostTensor> random_inputs(const ir::Workload& w, std::mt19937_64& rng) {
  std::vector<HostTensor> tensors;
  std::vector<ir::TensorType> types = kernel_input_types(w);
  for (size_t i = 0; i < types.size(); ++i) {
    tensors.emplace_back(types[i]);
    bool variance = w.op == OpKind::kBatchNorm && i == 4;
    tensors.back().fill_random(rng, variance ? 0.5f : -1.0f, variance ? 1.5f : 1.0f);
  }
  return tensors;
}

std::vector<const HostTensor*> pointers(const std::vector<HostTensor>& tensors) {
  std::vector<const HostTensor*> p;
  for (const HostTensor& t : tensors) p.push_back(&t);
  return p;
}

std::vector<ir::Workload> coverage_workloads() {
  using ir::Attrs;
  auto conv = [](std::vector<int64_t> s, std::vector<int64_t> p, std::vector<int64_t> d, int64_t g) {
    return Attrs{{"strides", s}, {"pads", p}, {"dilations", d}, {"groups", g}};
  };
  std::vector<int64_t> pads0{0, 0, 0, 0};
  return {
      make_workload(OpKind::kConv2d, {{1, 16, 14, 14}, {32, 16, 3, 3}}, conv({1, 1}, {1, 1, 1, 1}, {1, 1}, 1), {"bias", "relu"}),
      make_workload(OpKind::kConv2d, {{1, 8, 13, 11}, {12, 8, 3, 3}}, conv({2, 2}, {1, 0, 1, 2}, {1, 1}, 1), {"bias", "add", "relu6"}),
      make_workload(OpKind::kConv2d, {{2, 6, 9, 9}, {10, 6, 1, 1}}, conv({1, 1}, pads0, {1, 1}, 1), {"mul", "sigmoid"}),
      make_workload(OpKind::kConv2d, {{1, 16, 12, 12}, {16, 1, 3, 3}}, conv({1, 1}, {1, 1, 1, 1}, {1, 1}, 16), {"bias", "relu6"}),
      make_workload(OpKind::kConv2d, {{1, 12, 10, 10}, {18, 4, 3, 3}}, conv({1, 1}, {2, 2, 2, 2}, {2, 2}, 3), {"tanh"}),
      make_workload(OpKind::kConv2d, {{1, 3, 23, 23}, {8, 3, 7, 7}}, conv({2, 2}, {3, 3, 3, 3}, {1, 1}, 1), {"gelu"}),
      make_workload(OpKind::kDense, {{3, 40}, {24, 40}}, {}, {"bias", "relu"}),
      make_workload(OpKind::kDense, {{2, 5, 33}, {19, 33}}, {}, {"bias", "add", "gelu"}),
      make_workload(OpKind::kMatmul, {{7, 13}, {13, 21}}, {{"transpose_a", int64_t{0}}, {"transpose_b", int64_t{0}}}),
      make_workload(OpKind::kMatmul, {{13, 7}, {21, 13}}, {{"transpose_a", int64_t{1}}, {"transpose_b", int64_t{1}}}, {"bias"}),
      make_workload(OpKind::kBatchMatmul, {{2, 3, 5, 9}, {1, 3, 9, 6}},
                    {{"transpose_a", int64_t{0}}, {"transpose_b", int64_t{0}}}, {"mul"}),
      make_workload(OpKind::kBatchMatmul, {{4, 9, 5}, {4, 6, 9}}, {{"transpose_a", int64_t{1}}, {"transpose_b", int64_t{1}}}),
      make_workload(OpKind::kMaxPool2d, {{1, 5, 15, 15}},
                    {{"kernel", std::vector<int64_t>{3, 3}}, {"strides", std::vector<int64_t>{2, 2}},
                     {"pads", std::vector<int64_t>{1, 1, 1, 1}}, {"dilations", std::vector<int64_t>{1, 1}},
                     {"ceil_mode", int64_t{0}}}),
      make_workload(OpKind::kMaxPool2d, {{2, 3, 14, 13}},
                    {{"kernel", std::vector<int64_t>{3, 2}}, {"strides", std::vector<int64_t>{2, 2}}, {"pads", pads0},
                     {"dilations", std::vector<int64_t>{1, 2}}, {"ceil_mode", int64_t{1}}}),
      make_workload(OpKind::kAvgPool2d, {{1, 4, 11, 11}},
                    {{"kernel", std::vector<int64_t>{3, 3}}, {"strides", std::vector<int64_t>{2, 2}},
                     {"pads", std::vector<int64_t>{1, 1, 1, 1}}, {"ceil_mode", int64_t{0}}, {"count_include_pad", int64_t{1}}}),
      make_workload(OpKind::kAvgPool2d, {{1, 4, 12, 12}},
                    {{"kernel", std::vector<int64_t>{3, 3}}, {"strides", std::vector<int64_t>{2, 2}},
                     {"pads", std::vector<int64_t>{1, 1, 1, 1}}, {"ceil_mode", int64_t{1}}, {"count_include_pad", int64_t{0}}}),
      make_workload(OpKind::kGlobalAvgPool2d, {{2, 7, 5, 6}}),
      make_workload(OpKind::kSoftmax, {{3, 17}}, {{"axis", int64_t{-1}}}),
      make_workload(OpKind::kSoftmax, {{2, 5, 7}}, {{"axis", int64_t{1}}}),
      make_workload(OpKind::kLayerNorm, {{2, 6, 20}, {20}, {20}}, {{"axis", int64_t{-1}}, {"epsilon", 1e-5}}),
      make_workload(OpKind::kLayerNorm, {{3, 4, 5}, {4, 5}, {4, 5}}, {{"axis", int64_t{1}}, {"epsilon", 1e-3}}),
      make_workload(OpKind::kAdd, {{2, 3, 5, 7}, {3, 1, 7}}),
      make_workload(OpKind::kMul, {{4, 9}, {4, 9}}, {}, {"relu"}),
      make_workload(OpKind::kRelu, {{3, 37}}),
      make_workload(OpKind::kRelu6, {{2, 5, 6}}),
      make_workload(OpKind::kSigmoid, {{1, 3, 5, 9}}),
      make_workload(OpKind::kTanh, {{7, 11}}),
      make_workload(OpKind::kGelu, {{2, 33}}),
      make_workload(OpKind::kBatchNorm, {{2, 6, 5, 5}, {6}, {6}, {6}, {6}}, {{"epsilon", 1e-5}}),
  };
}

}  // namespace tensorperf::kernels::testing
