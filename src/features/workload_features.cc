#include "features/workload_features.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace tensorperf::features {
namespace {

constexpr size_t kDims = 4;
constexpr size_t kWorkloadFeatures = 2 + 3 * kDims + 7 + 5;  // what workload_features() pushes
constexpr size_t kDeviceFeatures = 2;

float log_dim(int64_t d) { return static_cast<float>(std::log2(1.0 + static_cast<double>(d))); }

// The last kDims dims of `s`, right-aligned: a rank-2 [M, K] lands where NCHW's H and W do.
void push_shape(const ir::Shape& s, std::vector<float>& out) {
  const size_t n = std::min(s.size(), kDims);
  for (size_t i = 0; i < kDims - n; ++i) out.push_back(0.0f);
  for (size_t i = s.size() - n; i < s.size(); ++i) out.push_back(log_dim(s[i]));
}

}  // namespace

std::vector<float> workload_features(const ir::Workload& w) {
  std::vector<float> f;
  f.push_back(static_cast<float>(static_cast<int>(w.op)));
  f.push_back(static_cast<float>(std::log2(1.0 + w.flops())));
  for (size_t i = 0; i < 2; ++i) push_shape(i < w.inputs.size() ? w.inputs[i].shape : ir::Shape{}, f);
  push_shape(w.output.shape, f);
  auto strides = w.attrs.get_ints("strides", {1, 1});
  auto pads = w.attrs.get_ints("pads", {0, 0, 0, 0});
  auto dil = w.attrs.get_ints("dilations", {1, 1});
  f.push_back(static_cast<float>(strides.empty() ? 1 : strides[0]));
  f.push_back(static_cast<float>(strides.size() < 2 ? 1 : strides[1]));
  f.push_back(static_cast<float>(pads.size() < 4 ? 0 : pads[0] + pads[2]));
  f.push_back(static_cast<float>(pads.size() < 4 ? 0 : pads[1] + pads[3]));
  f.push_back(static_cast<float>(dil.empty() ? 1 : dil[0]));
  f.push_back(static_cast<float>(w.attrs.get_int("groups", 1)));
  f.push_back(static_cast<float>(w.epilogue.size()));
  // Sizes and their ratios, which the dims give a tree only through many splits: the bytes the
  // first two inputs and the output occupy, the FLOPs per byte of all three (how memory-bound the
  // workload is) and per output element (the reduction's length).
  double in_bytes[2] = {0, 0};
  for (size_t i = 0; i < 2 && i < w.inputs.size(); ++i) in_bytes[i] = static_cast<double>(w.inputs[i].num_bytes());
  const double out_bytes = static_cast<double>(w.output.num_bytes());
  const double out_elements = static_cast<double>(std::max<int64_t>(1, w.output.num_elements()));
  f.push_back(static_cast<float>(std::log2(1.0 + in_bytes[0])));
  f.push_back(static_cast<float>(std::log2(1.0 + in_bytes[1])));
  f.push_back(static_cast<float>(std::log2(1.0 + out_bytes)));
  f.push_back(static_cast<float>(std::log2(1.0 + w.flops() / std::max(1.0, in_bytes[0] + in_bytes[1] + out_bytes))));
  f.push_back(static_cast<float>(std::log2(1.0 + w.flops() / out_elements)));
  return f;
}

const std::vector<std::string>& workload_feature_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {"op", "log2_flops"};
    for (const char* t : {"in0", "in1", "out"})
      for (size_t d = 0; d < kDims; ++d) n.push_back(std::string(t) + "_dim" + std::to_string(d));
    for (const char* a :
         {"stride_h", "stride_w", "pads_h", "pads_w", "dilation", "groups", "epilogue_ops", "log2_in0_bytes",
          "log2_in1_bytes", "log2_out_bytes", "log2_flops_per_byte", "log2_flops_per_output"})
      n.push_back(a);
    return n;
  }();
  return names;
}

std::vector<float> device_key_features(std::string_view key) {
  float threads = 0, lanes = 0;
  size_t t = key.rfind("-t");
  if (t != std::string_view::npos) {
    try {
      threads = std::stof(std::string(key.substr(t + 2)));
    } catch (const std::exception&) {
      threads = 0;
    }
  }
  if (key.find("-avx512") != std::string_view::npos) lanes = 16;
  else if (key.find("-avx2") != std::string_view::npos) lanes = 8;
  else if (key.find("-sse41") != std::string_view::npos) lanes = 4;
  return {threads, lanes};
}

size_t task_feature_width() { return kWorkloadFeatures + kDeviceFeatures; }

}  // namespace tensorperf::features
