// Compiling a pipeline for its workload's exact buffers: every input and the output pinned to min 0,
// the workload's sizes and dense strides. Halide then folds loop extents, tile counts and flattened
// indices to constants. Safe for kernels run through JitKernel, whose buffers are always dense and
// zero-based HostTensors (or packed copies of the packer's fixed shape).
#include "kernels/halide/halide_template.h"

namespace tensorperf::kernels::halide {
namespace {

std::vector<int> dense_strides(const std::vector<int>& sizes) {
  std::vector<int> s(sizes.size(), 1);
  for (size_t i = 1; i < sizes.size(); ++i) s[i] = s[i - 1] * sizes[i - 1];
  return s;
}

void pin(Halide::OutputImageParam p, const std::vector<int>& sizes) {
  std::vector<int> strides = dense_strides(sizes);
  for (size_t d = 0; d < sizes.size(); ++d) p.dim(static_cast<int>(d)).set_bounds(0, sizes[d]).set_stride(strides[d]);
}

}  // namespace

Result<std::vector<int>> input_sizes(const Program& program, const ir::Workload& w, size_t i) {
  auto view = program.input_views.find(i);
  if (view != program.input_views.end()) return view->second;
  const std::vector<ir::TensorType> types = kernel_input_types(w);
  if (i >= types.size()) return Status::Internal("template has more inputs than the workload");
  auto packer = program.packers.find(i);
  if (packer == program.packers.end()) return halide_sizes(types[i].shape);
  HostTensor zeros(types[i]);
  Halide::Buffer<float> packed = packer->second(zeros);
  std::vector<int> sizes;
  for (int d = 0; d < packed.dimensions(); ++d) sizes.push_back(packed.dim(d).extent());
  return sizes;
}

std::vector<int> output_sizes(const Program& program, const ir::Workload& w) {
  return program.output_view.empty() ? halide_sizes(w.output.shape) : program.output_view;
}

Result<std::vector<std::vector<int>>> pin_shapes(Program& program, const ir::Workload& w) {
  std::vector<std::vector<int>> pinned;
  for (size_t i = 0; i < program.inputs.size(); ++i) {
    TP_ASSIGN_OR_RETURN(std::vector<int> sizes, input_sizes(program, w, i));
    if (static_cast<int>(sizes.size()) != program.inputs[i].dimensions())
      return Status::Internal("input " + std::to_string(i) + " has " + std::to_string(sizes.size()) + " sizes for a " +
                              std::to_string(program.inputs[i].dimensions()) + "-D parameter");
    pin(program.inputs[i], sizes);
    pinned.push_back(std::move(sizes));
  }
  std::vector<int> out = output_sizes(program, w);
  if (static_cast<int>(out.size()) != program.output.dimensions())
    return Status::Internal("output sizes do not match the output's dimensions");
  pin(program.output.output_buffer(), out);
  return pinned;
}

}  // namespace tensorperf::kernels::halide
