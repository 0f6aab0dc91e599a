// oneDNN memory layouts as the Kernel interface names them (Kernel::NativeLayout), shared by the
// files of the oneDNN provider. Internal to src/kernels/onednn/: it includes dnnl.hpp.
#pragma once

#include <string>

#include <dnnl.hpp>

#include "kernels/provider.h"

namespace tensorperf::kernels::onednn {

// The process's CPU engine.
dnnl::engine& cpu_engine();
// A key that names a memory desc's layout: equal keys, equal bytes for the same logical tensor.
std::string layout_key(const dnnl::memory::desc& d);
// The desc's key, size, and whether it is dense NHWC.
Kernel::NativeLayout native_layout(const dnnl::memory::desc& d);

}  // namespace tensorperf::kernels::onednn
