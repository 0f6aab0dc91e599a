#include "costmodel/roofline.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace tensorperf::costmodel {
namespace {

struct Columns {
  size_t log2_flops;
  std::vector<std::vector<size_t>> tensor_dims;  // in0, in1, out: their four dim columns
  size_t peak, bandwidth;
};

const Columns& columns() {
  static const Columns c = [] {
    Columns c;
    c.log2_flops = program_column("workload.log2_flops");
    for (const char* t : {"in0", "in1", "out"}) {
      std::vector<size_t> dims;
      for (int d = 0; d < 4; ++d)
        dims.push_back(program_column(std::string("workload.") + t + "_dim" + std::to_string(d)));
      c.tensor_dims.push_back(std::move(dims));
    }
    c.peak = device_column("peak_gflops");
    c.bandwidth = device_column("mem_bandwidth_gbs");
    return c;
  }();
  return c;
}

double at(const std::vector<float>& v, size_t i) { return i < v.size() ? static_cast<double>(v[i]) : 0.0; }

}  // namespace

double roofline_seconds(const Sample& s) {
  const Columns& c = columns();
  const double flops = std::exp2(at(s.program, c.log2_flops)) - 1.0;
  double bytes = 0;
  for (const std::vector<size_t>& dims : c.tensor_dims) {
    double elements = 1;
    bool any = false;
    for (size_t i : dims) {
      const double d = std::exp2(at(s.program, i)) - 1.0;  // 0 where the tensor has fewer dims
      if (d >= 1) {
        elements *= d;
        any = true;
      }
    }
    if (any) bytes += 4.0 * elements;
  }
  const double peak = std::max(1.0, at(s.device, c.peak)) * 1e9;
  const double bandwidth = std::max(1.0, at(s.device, c.bandwidth)) * 1e9;
  return std::max(0.0, flops) / peak + bytes / bandwidth + 1e-6;
}

Result<bool> uses_roofline_target(const nlohmann::json& payload, const std::string& model) {
  const std::string target = payload.is_object() ? payload.value("target", "ln_seconds") : "ln_seconds";
  if (target == kRooflineTarget) return true;
  if (target == "ln_seconds") return false;
  return Status::InvalidArgument(model + " cost model: unknown target '" + target + "': made by a newer build?");
}

}  // namespace tensorperf::costmodel
