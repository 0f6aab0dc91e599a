#include "costmodel/noise_floor.h"

#include <algorithm>
#include <functional>
#include <string_view>
#include <unordered_map>

namespace tensorperf::costmodel {
namespace {

bool same_inputs(const Sample& a, const Sample& b) {
  return a.workload == b.workload && a.device_key == b.device_key && a.provider == b.provider &&
         a.program == b.program && a.device == b.device;
}

size_t inputs_hash(const Sample& s) {
  auto bytes = [](const std::vector<float>& v) {
    return std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  };
  size_t h = 0;
  for (std::string_view part : {std::string_view(s.workload), std::string_view(s.device_key),
                                std::string_view(s.provider), bytes(s.program), bytes(s.device)})
    h = h * 1000003u ^ std::hash<std::string_view>{}(part);
  return h;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

RepeatIndex::RepeatIndex(std::span<const Sample> samples) : samples_(samples), group_(samples.size(), -1) {
  std::unordered_map<size_t, std::vector<int>> by_hash;  // hash -> groups (compared exactly)
  for (size_t i = 0; i < samples.size(); ++i) {
    if (samples[i].seconds <= 0) continue;
    std::vector<int>& candidates = by_hash[inputs_hash(samples[i])];
    auto same = std::find_if(candidates.begin(), candidates.end(),
                             [&](int g) { return same_inputs(samples[members_[g].front()], samples[i]); });
    if (same == candidates.end()) {
      candidates.push_back(static_cast<int>(members_.size()));
      members_.emplace_back();
      same = candidates.end() - 1;
    }
    group_[i] = *same;
    members_[*same].push_back(i);
  }
}

NoiseFloor RepeatIndex::floor(std::span<const size_t> subset) const {
  NoiseFloor floor;
  for (size_t p = 0; p < subset.size(); ++p) {
    const size_t i = subset[p];
    if (i >= group_.size() || group_[i] < 0) continue;
    const std::vector<size_t>& group = members_[group_[i]];
    if (group.size() < 2) continue;
    std::vector<double> others;
    for (size_t j : group)
      if (j != i) others.push_back(samples_[j].seconds);
    floor.positions.push_back(p);
    floor.predicted.push_back(median(std::move(others)));
  }
  return floor;
}

}  // namespace tensorperf::costmodel
