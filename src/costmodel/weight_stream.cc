#include "costmodel/weight_stream.h"

#include <algorithm>

namespace tensorperf::costmodel {

double weight_bytes(const ir::Workload& w) {
  if ((w.op != ir::OpKind::kConv2d && w.op != ir::OpKind::kDense) || w.inputs.size() < 2) return 0;
  return static_cast<double>(w.inputs[1].num_bytes());
}

double streamed_weights_seconds(const ir::Workload& w, double predicted_s, double peak_gflops,
                                double mem_bandwidth_gbs) {
  const double bytes = weight_bytes(w);
  if (!(bytes > 0) || !(mem_bandwidth_gbs > 0)) return 0;
  const double stream_s = bytes / (mem_bandwidth_gbs * 1e9);
  const bool above_ridge = !(peak_gflops > 0) || w.flops() / bytes >= peak_gflops / mem_bandwidth_gbs;
  if (above_ridge) return stream_s;
  return std::max(0.0, stream_s - std::max(predicted_s, 0.0));
}

}  // namespace tensorperf::costmodel
