// The timing protocol every latency comes from (docs/profiling.md, "Timing protocol"): warm-up
// runs, then `repeat` timings, each the mean of `number` back-to-back runs, with an optional cache
// flush before each. The first timing calibrates `number`: it is taken again with a larger `number`
// until it lasts at least `min_repeat_ms`, and only the one that does is kept (with `stop_above_s`,
// the only one when it is above that). All costs are kept;
// the median is quoted (Record::median_cost).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "base/status.h"

namespace tensorperf::measure {

struct TimingOptions {
  int warmup = 1;                // untimed runs before calibrating `number`
  // Whole timings (calibration and repeats) taken after the warm-up and thrown away: after a
  // pause (a compile, a search computing) the first timing of a multi-threaded kernel can run many
  // times slow on a 2-core VM (5.1 ms, then 0.18 ms, for a 0.18 ms convolution on 2 threads).
  int discarded_timings = 0;
  int repeat = 3;                // timings reported (costs); REQUIRES: >= 1
  double min_repeat_ms = 50;     // one timing lasts at least this long
  int64_t max_number = 1 << 20;  // cap on `number` (kernels faster than min_repeat_ms / max_number)
  // After the first (calibrated) timing: when its cost is above this, the other repeats are skipped
  // and that one cost is the timing (0: never). A tuner sets it to a multiple of the best cost known
  // for the workload: a config that slow is no contender, and its repeats would be most of the time
  // spent measuring it.
  double stop_above_s = 0;
  // A timing whose repeats spread over `retake_spread` x (slowest against fastest) is taken again
  // from its calibration, up to `retakes` times; the last one taken is reported. On a shared 2-core
  // VM a kernel can stall for a few hundred milliseconds (repeats of 23.9, 20.2 and 0.13 ms for a
  // 0.015 ms convolution); no kernel's timings of at least min_repeat_ms each spread that far
  // otherwise. Applies only when min_repeat_ms > 0 (single-run timings of a few ns do spread).
  int retakes = 1;
  double retake_spread = 10;
  bool flush_cache = false;      // write a buffer larger than the last-level cache before each timing
  int64_t flush_bytes = 0;       // size of that buffer; 0: 2x the L3 (sysconf), capped at 256 MiB
  // Called before each timing (after the flush, if any): e.g. evict() of the data being timed.
  std::function<void()> before_timing;
  // before_timing is called before every run of a timing instead, outside the clock: each of the
  // `number` runs averaged then starts as the first did (e.g. cold), not only the first of them.
  bool before_every_run = false;
};

// Evicts the cache lines of [data, data + bytes) from every cache level (CLFLUSHOPT where the CPU
// has it, else CLFLUSH; nothing off x86), so that the next run reads them from memory, as an
// operator of a model reads inputs written long before. Cheaper and more exact than a flush
// buffer, whose size must exceed a last-level cache that virtual machines misreport.
void evict(const void* data, int64_t bytes);

struct Timing {
  std::vector<double> costs;  // seconds per run, one per repeat
  int64_t number = 1;         // runs averaged in each cost
  bool stopped_early = false;  // TimingOptions::stop_above_s cut the repeats short
  int retaken = 0;             // times the whole timing was taken again (TimingOptions::retakes)
};

// Times `run` (one execution of a kernel) under the protocol. The first failed run ends the timing
// and its Status is returned.
Result<Timing> time_runs(const std::function<Status()>& run, const TimingOptions& options);

}  // namespace tensorperf::measure
