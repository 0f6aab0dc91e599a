// Micro-benchmarks that measure a device's peaks: FP32 FMA throughput and STREAM-triad bandwidth,
// each on `threads` threads pinned to the first `threads` CPUs, over the CPU time the threads ran
// (so another process taking turns on those CPUs does not halve them). Private to measure/ (device.cc).
#pragma once

#include <string>

namespace tensorperf::measure {

// GFLOP/s of independent multiply-add chains with the widest vectors of `isa` ("sse41": 4-wide
// mul+add, "avx2": 8-wide FMA, "avx512": 16-wide FMA). Best of a few runs, about 0.3 s in all.
double measure_peak_gflops(const std::string& isa, int threads);

// GB/s of a[i] = b[i] + s*c[i] over three 48 MiB float arrays (12 bytes per element counted, as
// STREAM does). Best of a few runs.
double measure_triad_bandwidth(int threads);

}  // namespace tensorperf::measure
