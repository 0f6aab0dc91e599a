// Element-wise kernels inside a chain of oneDNN layouts. An element-wise kernel (add, mul, an
// activation; an activation epilogue at most) whose inputs each have the output's shape, or a single
// element, computes every output element from the elements at the same index of its inputs. Given
// its full-shape inputs and its output in one layout that stores a tensor in the same number of
// bytes (a permutation of its elements: channels last, or nChw16c / nChw8c where the channels fill
// whole blocks), it computes the same values in that layout. A graph runtime that keeps activations
// in a oneDNN convolution's layout can then pass them through such a kernel, where a plain kernel
// makes the convolution before it convert to plain NCHW and the one after it convert back (RandWire's
// and NASNet-A's sums and ReLUs between separable convolutions).
#pragma once

#include <memory>
#include <string>

#include "ir/workload.h"
#include "kernels/provider.h"

namespace tensorperf::kernels::onednn {

// w is such a kernel's workload: add, mul, relu, relu6, sigmoid, tanh or gelu of float32 rank-4
// tensors, every input of the output's shape or of one element, at least one of the output's shape.
bool passes_layouts_through(const ir::Workload& w);

// Whether such a kernel of w passes a layout of `family` (Provider::expected_native_layout's names)
// through: "onednn:nhwc" always, "onednn:blocked16" / "onednn:blocked8" when w's channels fill
// whole blocks. False when !passes_layouts_through(w).
bool passes_layout_family(const ir::Workload& w, const std::string& family);

// Wraps `inner`, a plain-layout kernel of w that runs with `threads` threads, so that each full-shape
// input offers those layouts (Kernel::alternative_input_layouts). Once one is adopted
// (Kernel::adopt_input_layout), every full-shape input and the output are in it; the first adoption
// fixes it (another key is InvalidArgument). A full-shape input that arrives plain is converted into
// it and an output wanted plain is converted back (Kernel::use_native_layouts), each with a oneDNN
// reorder. Until an adoption it runs `inner` as it is. Returns `inner` unwrapped when
// !passes_layouts_through(w) or when `inner` names or adopts layouts of its own.
std::unique_ptr<Kernel> pass_layouts_through(std::unique_ptr<Kernel> inner, const ir::Workload& w, int threads);

}  // namespace tensorperf::kernels::onednn
