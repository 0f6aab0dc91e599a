// The device a measurement belongs to: hardware fingerprint (CPU model, ISA features, cores, caches),
// the compile target (a Halide target string for the chosen ISA level), the thread count, and the
// measured peak FP32 GFLOP/s (FMA loop) and memory bandwidth (STREAM triad) at that ISA and thread
// count. The key is built from identity fields only, never from measured numbers, so it is stable
// across runs: the same CPU with 1 or 2 threads, or at AVX2 or SSE4.1, are different devices.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace tensorperf::measure {

struct Device {
  std::string arch = "x86_64";
  std::string cpu_model;                  // /proc/cpuinfo "model name", e.g. "AMD EPYC 7B13 64-Core Processor"
  // /proc/cpuinfo "cpu family" and "model" as "f<family>m<model>", e.g. "f26m2"; empty where not shown.
  // Part of the key when the model name is masked (a cloud VM's "AMD EPYC" names several generations).
  std::string cpu_signature;
  std::vector<std::string> isa_features;  // what the CPU has, e.g. {"sse41", "avx", "avx2", "fma", ...}
  std::string isa;                        // the level compiled for: "sse41", "avx2" (with FMA) or "avx512"
  std::string target;                     // Halide target string for `isa`, e.g. "x86-64-linux-avx-avx2-f16c-fma-sse41"
  int cores = 0;                          // logical CPUs this process may run on
  int threads = 1;                        // threads kernels use (pinned to the first `threads` CPUs)
  int64_t l1d_bytes = 0, l2_bytes = 0, l3_bytes = 0;  // per sysfs, else glibc's cpuid view; 0 = unknown
  double peak_gflops = 0;                             // measured FP32, `threads` threads, `isa` vectors
  double mem_bandwidth_gbs = 0;                       // measured triad, `threads` threads, GB/s (1e9 bytes)
  double clock_mhz = 0;  // rated maximum (cpufreq), else the clock /proc/cpuinfo shows; 0 = unknown

  // "x86_64-amd-epyc-7b13-avx2-fma-t2": arch, CPU model slug, ISA level, threads. A model name without
  // a model number ("AMD EPYC") gets the CPU signature: "x86_64-amd-epyc-f26m2-avx512-t2".
  std::string key() const;
  // Numeric description for cost models, in the order of device_feature_names().
  std::vector<double> features() const;
};

const std::vector<std::string>& device_feature_names();

// Whether `older` describes `host`'s CPU under a key made before keys carried the CPU signature (a
// masked model name's "f25m17"): `older` has no signature, `host` has one, and the rest of what
// tells CPUs apart is equal (architecture, model name, ISA level and features, cores, threads,
// cache sizes). Peaks and clocks are measurements, not identity, and are not compared.
bool same_cpu_under_older_key(const Device& older, const Device& host);

nlohmann::json device_to_json(const Device& d);
Result<Device> device_from_json(const nlohmann::json& j);

struct DeviceOptions {
  int threads = 1;             // REQUIRES: 1 <= threads <= available CPUs
  std::string isa = "native";  // "native" (best level the CPU has), "sse41", "avx2", "avx512"
  // Where measured peaks are cached as device-<key>.json. Empty: $XDG_CACHE_HOME/tensorperf, else
  // ~/.cache/tensorperf.
  std::string cache_dir;
  bool remeasure = false;  // ignore the cache and measure the peaks again
};

// Detects the identity of this machine and fills the peaks from the cache, measuring them (about a
// second) when absent. Errors: an ISA level the CPU lacks, a thread count above the available CPUs
// (InvalidArgument); an unreadable /proc/cpuinfo (IoError).
Result<Device> detect_device(const DeviceOptions& options = {});

// The machine's 1-minute load average (/proc/loadavg), kept with each measurement; -1 when unreadable.
double load_average();

// The first `threads` CPUs this process may run on, in order (what measurements pin to).
std::vector<int> pinned_cpus(int threads);
// Restricts the calling thread, and the threads it starts afterwards, to `cpus` (sched_setaffinity).
// Error when the OS refuses.
Status pin_current_thread(const std::vector<int>& cpus);

}  // namespace tensorperf::measure
