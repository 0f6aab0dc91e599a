// The median of a sample (the mean of the two middle values when it has an even size).
#pragma once

#include <algorithm>
#include <vector>

namespace tensorperf {

// REQUIRES: !v.empty().
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace tensorperf
