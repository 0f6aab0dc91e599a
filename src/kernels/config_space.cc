#include "kernels/provider.h"

namespace tensorperf::kernels {

double ConfigSpace::size() const {
  double n = 1.0;
  for (const Knob& k : knobs) n *= static_cast<double>(k.values.size());
  return n;
}

std::vector<Config> ConfigSpace::enumerate(const std::string& provider) const {
  std::vector<Config> configs = {Config{provider, nlohmann::json::object()}};
  for (const Knob& k : knobs) {
    std::vector<Config> next;
    next.reserve(configs.size() * k.values.size());
    for (const Config& c : configs)
      for (const auto& v : k.values) {
        Config d = c;
        d.knobs[k.name] = v;
        next.push_back(std::move(d));
      }
    configs = std::move(next);
  }
  return configs;
}

}  // namespace tensorperf::kernels
