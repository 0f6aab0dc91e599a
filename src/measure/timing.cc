#include "measure/timing.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace tensorperf::measure {
namespace {

#if defined(__x86_64__)
bool has_clflushopt() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 23)) != 0;
}

__attribute__((target("clflushopt"))) void evict_lines_opt(const char* p, const char* end) {
  for (; p < end; p += 64) _mm_clflushopt(const_cast<char*>(p));
}

void evict_lines(const char* p, const char* end) {
  for (; p < end; p += 64) _mm_clflush(p);
}
#endif

using Clock = std::chrono::steady_clock;

// Writes a buffer larger than the LLC, evicting the kernel's data and weights from every cache.
void flush_caches(int64_t bytes) {
  static std::vector<char> buffer;
  static int pass = 0;
  if (static_cast<int64_t>(buffer.size()) != bytes) buffer.assign(static_cast<size_t>(bytes), 0);
  std::memset(buffer.data(), ++pass & 0xff, buffer.size());
}

int64_t default_flush_bytes() {
  // Virtual machines often report a whole socket's L3 while a core sees only its CCX's share; the
  // cap keeps a flush under ~20 ms without losing its effect.
  constexpr int64_t kCap = int64_t{256} << 20;
  long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  return l3 > 0 ? std::min<int64_t>(2 * int64_t{l3}, kCap) : kCap;
}

// Seconds per run over `number` back-to-back runs; with `before_each`, it runs before every run,
// and only the runs are on the clock.
Result<double> time_number(const std::function<Status()>& run, int64_t number,
                           const std::function<void()>* before_each = nullptr) {
  if (before_each != nullptr) {
    double seconds = 0;
    for (int64_t i = 0; i < number; ++i) {
      (*before_each)();
      auto start = Clock::now();
      TP_RETURN_IF_ERROR(run());
      seconds += std::chrono::duration<double>(Clock::now() - start).count();
    }
    return seconds / static_cast<double>(number);
  }
  auto start = Clock::now();
  for (int64_t i = 0; i < number; ++i) TP_RETURN_IF_ERROR(run());
  return std::chrono::duration<double>(Clock::now() - start).count() / static_cast<double>(number);
}

// Calibration and repeats (the warm-up and discarded timings are the caller's).
Result<Timing> take(const std::function<Status()>& run, const TimingOptions& options) {
  // The first timing calibrates: while it is shorter than min_repeat_ms, `number` grows (TVM's rule:
  // to the estimate that fills min_repeat_ms, at least x1.618) and it is taken again. The timing that
  // reaches min_repeat_ms is kept as the first cost.
  const double min_s = options.min_repeat_ms / 1e3;
  const int64_t flush_bytes = options.flush_bytes > 0 ? options.flush_bytes : default_flush_bytes();
  Timing t;
  for (int r = 0; r < options.repeat && !t.stopped_early; ++r) {
    while (true) {
      if (options.flush_cache) flush_caches(flush_bytes);
      const bool every_run = options.before_every_run && options.before_timing;
      if (options.before_timing && !every_run) options.before_timing();
      TP_ASSIGN_OR_RETURN(double per_run, time_number(run, t.number, every_run ? &options.before_timing : nullptr));
      bool long_enough = per_run * static_cast<double>(t.number) >= min_s || t.number >= options.max_number;
      if (r > 0 || long_enough) {
        t.costs.push_back(per_run);
        t.stopped_early = r == 0 && options.repeat > 1 && options.stop_above_s > 0 && per_run > options.stop_above_s;
        break;
      }
      double estimate = per_run > 0 ? std::ceil(min_s / per_run) : static_cast<double>(options.max_number);
      double grown = std::max(estimate, std::ceil(1.618 * static_cast<double>(t.number)));
      t.number = std::min<int64_t>(options.max_number, static_cast<int64_t>(grown));
    }
  }
  return t;
}

bool spread_too_far(const Timing& t, const TimingOptions& options) {
  if (options.min_repeat_ms <= 0 || t.costs.size() < 2) return false;
  auto [lo, hi] = std::minmax_element(t.costs.begin(), t.costs.end());
  return *hi > options.retake_spread * *lo;
}

}  // namespace

Result<Timing> time_runs(const std::function<Status()>& run, const TimingOptions& options) {
  if (options.repeat < 1) return Status::InvalidArgument("repeat must be at least 1");
  for (int i = 0; i < options.warmup; ++i) TP_RETURN_IF_ERROR(run());
  if (options.discarded_timings > 0) {
    TimingOptions once = options;
    once.warmup = 0;
    once.discarded_timings = 0;
    once.retakes = 0;
    for (int i = 0; i < options.discarded_timings; ++i) TP_RETURN_IF_ERROR(time_runs(run, once).status());
  }
  TP_ASSIGN_OR_RETURN(Timing t, take(run, options));
  for (int retaken = 1; retaken <= options.retakes && spread_too_far(t, options); ++retaken) {
    TP_ASSIGN_OR_RETURN(t, take(run, options));
    t.retaken = retaken;
  }
  return t;
}

void evict(const void* data, int64_t bytes) {
#if defined(__x86_64__)
  if (data == nullptr || bytes <= 0) return;
  static const bool opt = has_clflushopt();
  const char* begin = reinterpret_cast<const char*>(reinterpret_cast<uintptr_t>(data) & ~uintptr_t{63});
  const char* end = static_cast<const char*>(data) + bytes;
  if (opt) evict_lines_opt(begin, end);
  else evict_lines(begin, end);
  _mm_mfence();
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace tensorperf::measure
