#include "features/knob_features.h"

#include <cmath>

namespace tensorperf::features {
namespace {

const std::vector<std::string>& providers() {
  static const std::vector<std::string> p = {"halide", "onednn"};
  return p;
}

}  // namespace

const std::vector<std::string>& knob_feature_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const std::string& p : providers()) n.push_back("provider_" + p);
    for (size_t i = 0; i < kKnobSlots; ++i) n.push_back("knob" + std::to_string(i));
    n.push_back("chained_io");
    return n;
  }();
  return names;
}

Result<std::vector<float>> knob_features(const ir::Workload& w, const kernels::Config& config, bool chained) {
  TP_ASSIGN_OR_RETURN(const kernels::Provider* provider, kernels::find_provider(config.provider));
  std::vector<float> out;
  for (const std::string& p : providers()) out.push_back(p == config.provider ? 1.0f : 0.0f);
  const kernels::ConfigSpace space = provider->space(w);
  for (size_t i = 0; i < kKnobSlots; ++i) {
    float v = 0;
    if (i < space.knobs.size() && config.knobs.is_object()) {
      const kernels::Knob& knob = space.knobs[i];
      auto it = config.knobs.find(knob.name);
      if (it != config.knobs.end()) {
        if (it->is_number()) {
          v = static_cast<float>(std::log2(1.0 + std::max(0.0, it->get<double>())));
        } else {
          for (size_t k = 0; k < knob.values.size(); ++k)
            if (knob.values[k] == *it) v = static_cast<float>(k + 1);
        }
      }
    }
    out.push_back(v);
  }
  out.push_back(chained ? 1.0f : 0.0f);
  return out;
}

}  // namespace tensorperf::features
