// What the files of the oneDNN provider share: the engine, memory layouts as the Kernel interface
// names them (Kernel::NativeLayout), reorders and the OpenMP thread count of a scope. Internal to
// src/kernels/onednn/: it includes dnnl.hpp.
#pragma once

#include <omp.h>

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
// A reorder primitive between two layouts on the CPU engine, made under the calling thread's
// OpenMP thread count (the count it runs with).
dnnl::reorder make_reorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to);

// The calling thread's OpenMP thread count set to `n` for a scope. With OpenMP, a oneDNN primitive
// fixes its thread count when it is made, so primitives are made under the count they run with.
struct OmpThreads {
  int before = omp_get_max_threads();
  explicit OmpThreads(int n) { omp_set_num_threads(n); }
  ~OmpThreads() { omp_set_num_threads(before); }
  OmpThreads(const OmpThreads&) = delete;
  OmpThreads& operator=(const OmpThreads&) = delete;
};

}  // namespace tensorperf::kernels::onednn
