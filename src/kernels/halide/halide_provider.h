// The Halide kernel provider: a JIT-compiled Halide algorithm and schedule template per op kind.
// Knob spaces per op family are documented in each template file (conv2d.cc, dense.cc, ...).
#pragma once

#include "kernels/provider.h"

namespace tensorperf::kernels::halide {

const Provider& halide_provider();

}  // namespace tensorperf::kernels::halide
