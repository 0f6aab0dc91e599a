#include "features/workload_features.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace tensorperf::features {
namespace {

constexpr size_t kDims = 4;
constexpr size_t kWorkloadFeatures = 2 + 3 * kDims + 7;  // what workload_features() pushes
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
  return f;
}

const std::vector<std::string>& workload_feature_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {"op", "log2_flops"};
    for (const char* t : {"in0", "in1", "out"})
      for (size_t d = 0; d < kDims; ++d) n.push_back(std::string(t) + "_dim" + std::to_string(d));
    for (const char* a : {"stride_h", "stride_w", "pads_h", "pads_w", "dilation", "groups", "epilogue_ops"})
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
