#include "costmodel/cross_features.h"

#include <algorithm>
#include <cmath>

#include "costmodel/roofline.h"

namespace tensorperf::costmodel {
namespace {

struct Columns {
  size_t log2_flops;
  std::vector<size_t> log2_bytes;  // in0, in1, out
  size_t threads, l1d_kib, l2_kib, l3_mib, peak, bandwidth;
};

const Columns& columns() {
  static const Columns c = [] {
    Columns c;
    c.log2_flops = program_column("workload.log2_flops");
    for (const char* t : {"in0", "in1", "out"})
      c.log2_bytes.push_back(program_column(std::string("workload.log2_") + t + "_bytes"));
    c.threads = device_column("threads");
    c.l1d_kib = device_column("l1d_kib");
    c.l2_kib = device_column("l2_kib");
    c.l3_mib = device_column("l3_mib");
    c.peak = device_column("peak_gflops");
    c.bandwidth = device_column("mem_bandwidth_gbs");
    return c;
  }();
  return c;
}

double at(const std::vector<float>& v, size_t i) { return i < v.size() ? static_cast<double>(v[i]) : 0.0; }
double at_least_1(double v) { return std::max(1.0, v); }

}  // namespace

const std::vector<std::string>& cross_feature_names() {
  static const std::vector<std::string> names = {"cross.bytes_per_thread_over_l1", "cross.bytes_per_thread_over_l2",
                                                 "cross.bytes_over_l3", "cross.intensity_over_balance",
                                                 "cross.roofline_us"};
  return names;
}

std::vector<float> cross_features(const Sample& s) {
  const Columns& c = columns();
  double bytes = 0;  // workload.log2_*_bytes are log2 of 1 + bytes
  for (size_t i : c.log2_bytes) bytes += std::exp2(at(s.program, i)) - 1.0;
  bytes = at_least_1(bytes);
  const double flops = at_least_1(std::exp2(at(s.program, c.log2_flops)) - 1.0);
  const double per_thread = bytes / at_least_1(at(s.device, c.threads));
  const double balance = at_least_1(at(s.device, c.peak)) / at_least_1(at(s.device, c.bandwidth));  // FLOP per byte
  return {static_cast<float>(std::log2(per_thread / (1024.0 * at_least_1(at(s.device, c.l1d_kib))))),
          static_cast<float>(std::log2(per_thread / (1024.0 * at_least_1(at(s.device, c.l2_kib))))),
          static_cast<float>(std::log2(bytes / (1024.0 * 1024.0 * at_least_1(at(s.device, c.l3_mib))))),
          static_cast<float>(std::log2(flops / bytes / balance)),
          static_cast<float>(std::log2(roofline_seconds(s) * 1e6))};
}

}  // namespace tensorperf::costmodel
