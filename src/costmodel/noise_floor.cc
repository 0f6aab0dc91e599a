#include "costmodel/noise_floor.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>

namespace tensorperf::costmodel {
namespace {

// What a model sees of a sample, as bytes: equal keys, equal inputs.
std::string input_key(const Sample& s) {
  std::string key = s.workload + '\n' + s.device_key + '\n' + s.provider + '\n';
  const size_t head = key.size();
  key.resize(head + sizeof(float) * (s.program.size() + s.device.size()));
  std::memcpy(key.data() + head, s.program.data(), sizeof(float) * s.program.size());
  std::memcpy(key.data() + head + sizeof(float) * s.program.size(), s.device.data(), sizeof(float) * s.device.size());
  return key;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

NoiseFloor noise_floor(std::span<const Sample> samples, std::span<const size_t> subset) {
  std::unordered_map<std::string, std::vector<size_t>> groups;
  std::vector<std::string> keys(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) {
    if (samples[i].seconds <= 0) continue;
    keys[i] = input_key(samples[i]);
    groups[keys[i]].push_back(i);
  }
  NoiseFloor floor;
  for (size_t p = 0; p < subset.size(); ++p) {
    const size_t i = subset[p];
    if (i >= samples.size() || samples[i].seconds <= 0) continue;
    const std::vector<size_t>& group = groups[keys[i]];
    if (group.size() < 2) continue;
    std::vector<double> others;
    for (size_t j : group)
      if (j != i) others.push_back(samples[j].seconds);
    floor.positions.push_back(p);
    floor.predicted.push_back(median(std::move(others)));
  }
  return floor;
}

}  // namespace tensorperf::costmodel
