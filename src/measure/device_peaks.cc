#include "measure/device_peaks.h"

#include <immintrin.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "measure/device.h"

namespace tensorperf::measure {
namespace {

// 12 independent accumulators hide the FMA latency (4-5 cycles) on two FMA ports.
constexpr int kChains = 12;
constexpr int64_t kIters = 10'000'000;

__attribute__((target("sse4.1"))) float chains_sse(int64_t iters) {
  __m128 acc[kChains];
  for (int k = 0; k < kChains; ++k) acc[k] = _mm_set1_ps(0.1f * static_cast<float>(k));
  const __m128 m = _mm_set1_ps(0.9999f), a = _mm_set1_ps(1e-4f);
  for (int64_t i = 0; i < iters; ++i)
    for (int k = 0; k < kChains; ++k) acc[k] = _mm_add_ps(_mm_mul_ps(acc[k], m), a);
  __m128 s = acc[0];
  for (int k = 1; k < kChains; ++k) s = _mm_add_ps(s, acc[k]);
  return _mm_cvtss_f32(s);
}

__attribute__((target("avx2,fma"))) float chains_avx2(int64_t iters) {
  __m256 acc[kChains];
  for (int k = 0; k < kChains; ++k) acc[k] = _mm256_set1_ps(0.1f * static_cast<float>(k));
  const __m256 m = _mm256_set1_ps(0.9999f), a = _mm256_set1_ps(1e-4f);
  for (int64_t i = 0; i < iters; ++i)
    for (int k = 0; k < kChains; ++k) acc[k] = _mm256_fmadd_ps(acc[k], m, a);
  __m256 s = acc[0];
  for (int k = 1; k < kChains; ++k) s = _mm256_add_ps(s, acc[k]);
  return _mm_cvtss_f32(_mm256_castps256_ps128(s));
}

__attribute__((target("avx512f"))) float chains_avx512(int64_t iters) {
  __m512 acc[kChains];
  for (int k = 0; k < kChains; ++k) acc[k] = _mm512_set1_ps(0.1f * static_cast<float>(k));
  const __m512 m = _mm512_set1_ps(0.9999f), a = _mm512_set1_ps(1e-4f);
  for (int64_t i = 0; i < iters; ++i)
    for (int k = 0; k < kChains; ++k) acc[k] = _mm512_fmadd_ps(acc[k], m, a);
  __m512 s = acc[0];
  for (int k = 1; k < kChains; ++k) s = _mm512_add_ps(s, acc[k]);
  return _mm512_cvtss_f32(s);
}

// Seconds of CPU the calling thread has run.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Runs body(t) on `threads` threads, each pinned to its CPU; returns the CPU seconds of the thread
// that ran longest. CPU time, not wall time: where another process shares a CPU, the scheduler
// takes turns and a thread's wall time grows with the other's share (a probe during a 2-core build
// measured half the peak and cached it), while its CPU time is what the work took.
double run_pinned(int threads, const std::function<void(int)>& body) {
  std::vector<int> cpus = pinned_cpus(threads);
  std::vector<double> seconds(static_cast<size_t>(threads), 0.0);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      (void)pin_current_thread({cpus[t % cpus.size()]});  // unpinned still measures, a bit noisier
      const double start = thread_cpu_seconds();
      body(t);
      seconds[static_cast<size_t>(t)] = thread_cpu_seconds() - start;
    });
  }
  for (auto& w : workers) w.join();
  return *std::max_element(seconds.begin(), seconds.end());
}

volatile float g_sink;  // keeps the chains' results alive

}  // namespace

double measure_peak_gflops(const std::string& isa, int threads) {
  int lanes = isa == "avx512" ? 16 : isa == "avx2" ? 8 : 4;
  float (*chains)(int64_t) = isa == "avx512" ? chains_avx512 : isa == "avx2" ? chains_avx2 : chains_sse;
  double best = 0;
  for (int run = 0; run < 3; ++run) {
    double s = run_pinned(threads, [&](int) { g_sink = chains(kIters); });
    double flops = 2.0 * kChains * lanes * static_cast<double>(kIters) * threads;
    best = std::max(best, flops / s / 1e9);
  }
  return best;
}

double measure_triad_bandwidth(int threads) {
  constexpr int64_t n = 12 << 20;  // 48 MiB per float array
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  auto alloc = [] {
    return std::unique_ptr<float, Free>(static_cast<float*>(std::aligned_alloc(64, n * sizeof(float))));
  };
  auto a = alloc(), b = alloc(), c = alloc();
  auto range = [&](int t) { return std::pair<int64_t, int64_t>{n * t / threads, n * (t + 1) / threads}; };
  // First touch by the threads that use the data, so pages land near them.
  run_pinned(threads, [&](int t) {
    auto [lo, hi] = range(t);
    for (int64_t i = lo; i < hi; ++i) a.get()[i] = 0, b.get()[i] = 1.0f, c.get()[i] = 2.0f;
  });
  double best = 0;
  for (int run = 0; run < 5; ++run) {
    const float s = 1.0f + 1e-3f * static_cast<float>(run);
    double secs = run_pinned(threads, [&](int t) {
      auto [lo, hi] = range(t);
      float* __restrict pa = a.get();
      const float* __restrict pb = b.get();
      const float* __restrict pc = c.get();
      for (int64_t i = lo; i < hi; ++i) pa[i] = pb[i] + s * pc[i];
    });
    best = std::max(best, 3.0 * sizeof(float) * static_cast<double>(n) / secs / 1e9);
  }
  g_sink = a.get()[n / 2];
  return best;
}

}  // namespace tensorperf::measure
