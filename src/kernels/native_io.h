// Inputs and an output for running a kernel as a graph runtime that chains kernels of one native
// layout runs it: its activation input (input 0) and its output already in the kernel's native
// layout (Kernel::native_input_layout / native_output_layout), so the conversions the kernel does
// when it runs alone are left out. The tensors are random (never all zero); the other inputs stay
// plain. Used to time what a kernel costs inside a chain (the runner's native_costs, the executor's
// quick timings).
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "ir/workload.h"
#include "kernels/host_tensor.h"
#include "kernels/provider.h"

namespace tensorperf::kernels {

// True when `k` names a native layout for its activation input or its output, or can adopt one.
bool has_native_layout(const Kernel& k);

class NativeIo {
 public:
  // Switches `k` to native layouts where it has them (Kernel::use_native_layouts; a kernel that can
  // adopt its producer's layout adopts channels last, or else its first alternative) and makes
  // buffers for w's inputs and output, each as large as the larger of its plain and native
  // layouts. `k` must not have run in plain layouts with another NativeIo's tensors since.
  // `native` false: `k` is left as it is and the tensors are plain (what the kernel costs alone,
  // its conversions included). Errors: the kernel rejects the layouts.
  static Result<NativeIo> prepare(Kernel& k, const ir::Workload& w, uint64_t seed = 1, bool native = true);

  const std::vector<const HostTensor*>& inputs() const { return pointers_; }
  HostTensor& output() { return output_; }

 private:
  std::vector<HostTensor> storage_;  // owning, sized for the larger layout
  std::vector<HostTensor> views_;    // of the workload's types over storage_
  std::vector<const HostTensor*> pointers_;
  HostTensor output_storage_;
  HostTensor output_;
};

}  // namespace tensorperf::kernels
