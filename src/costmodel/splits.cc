#include "costmodel/splits.h"

#include "costmodel/device_table.h"

#include <algorithm>
#include <map>
#include <limits>
#include <numeric>
#include <cstdio>
#include <random>

namespace tensorperf::costmodel {

const char* selection_name(Selection s) { return s == Selection::kKMeans ? "kmeans" : "random"; }

Split random_split(const std::vector<Sample>& samples, double test_share, uint64_t seed) {
  std::vector<size_t> order(samples.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  const auto n_test = static_cast<size_t>(test_share * static_cast<double>(samples.size()));
  Split s{"random", {}, {}, {}};
  s.test.assign(order.begin(), order.begin() + static_cast<long>(n_test));
  s.train.assign(order.begin() + static_cast<long>(n_test), order.end());
  std::sort(s.train.begin(), s.train.end());
  std::sort(s.test.begin(), s.test.end());
  return s;
}

std::vector<Split> cross_model_splits(const std::vector<Sample>& samples,
                                      const std::map<std::string, std::set<std::string>>& workloads_of_network) {
  std::vector<Split> out;
  for (const auto& [network, workloads] : workloads_of_network) {
    Split s{"cross-model " + network, {}, {}, {}};
    for (size_t i = 0; i < samples.size(); ++i) {
      if (workloads.count(samples[i].workload)) s.test.push_back(i);
      else s.train.push_back(i);
    }
    if (!s.test.empty() && !s.train.empty()) out.push_back(std::move(s));
  }
  return out;
}

namespace {

double distance2(const std::vector<float>& a, const std::vector<float>& b) {
  double d = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const double x = static_cast<double>(a[i]) - b[i];
    d += x * x;
  }
  return d;
}

}  // namespace

std::vector<size_t> kmeans_representatives(const std::vector<Sample>& samples, const std::vector<size_t>& rows, size_t k,
                                           uint64_t seed) {
  if (rows.empty() || k == 0) return {};
  k = std::min(k, rows.size());
  std::mt19937_64 rng(seed);
  // k-means++: each next centre drawn with probability proportional to its squared distance.
  std::vector<std::vector<float>> centres = {samples[rows[std::uniform_int_distribution<size_t>(0, rows.size() - 1)(rng)]].program};
  std::vector<double> nearest(rows.size(), std::numeric_limits<double>::max());
  while (centres.size() < k) {
    double total = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      nearest[i] = std::min(nearest[i], distance2(samples[rows[i]].program, centres.back()));
      total += nearest[i];
    }
    if (total <= 0) break;  // fewer distinct points than k
    double pick = std::uniform_real_distribution<double>(0, total)(rng);
    size_t chosen = rows.size() - 1;
    for (size_t i = 0; i < rows.size(); ++i) {
      pick -= nearest[i];
      if (pick <= 0) {
        chosen = i;
        break;
      }
    }
    centres.push_back(samples[rows[chosen]].program);
  }
  std::vector<size_t> member(rows.size(), 0);
  for (int iteration = 0; iteration < 25; ++iteration) {
    bool moved = false;
    for (size_t i = 0; i < rows.size(); ++i) {
      size_t best = 0;
      double best_d = std::numeric_limits<double>::max();
      for (size_t c = 0; c < centres.size(); ++c) {
        const double d = distance2(samples[rows[i]].program, centres[c]);
        if (d < best_d) {
          best_d = d;
          best = c;
        }
      }
      moved = moved || member[i] != best || iteration == 0;
      member[i] = best;
    }
    if (!moved) break;
    for (size_t c = 0; c < centres.size(); ++c) {
      std::vector<double> sum(centres[c].size(), 0.0);
      size_t n = 0;
      for (size_t i = 0; i < rows.size(); ++i)
        if (member[i] == c) {
          for (size_t f = 0; f < sum.size(); ++f) sum[f] += samples[rows[i]].program[f];
          ++n;
        }
      if (n == 0) continue;
      for (size_t f = 0; f < sum.size(); ++f) centres[c][f] = static_cast<float>(sum[f] / static_cast<double>(n));
    }
  }
  std::vector<size_t> out;
  for (size_t c = 0; c < centres.size(); ++c) {
    size_t best = rows.size();
    double best_d = std::numeric_limits<double>::max();
    for (size_t i = 0; i < rows.size(); ++i)
      if (member[i] == c) {
        const double d = distance2(samples[rows[i]].program, centres[c]);
        if (d < best_d) {
          best_d = d;
          best = i;
        }
      }
    if (best < rows.size()) out.push_back(rows[best]);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string cpu_of_device(const std::string& device_key) {
  const DeviceKeyParts p = split_device_key(device_key);
  return p.cpu.empty() ? p.arch : p.arch + "-" + p.cpu;
}

Split cross_device_split(const std::vector<Sample>& samples, const std::string& device, double share,
                         Selection selection, uint64_t seed, HoldOut hold_out) {
  std::vector<size_t> own;
  Split s;
  const std::string cpu = cpu_of_device(device);
  std::map<std::string, bool> same_cpu;  // by device key
  for (size_t i = 0; i < samples.size(); ++i) {
    const std::string& key = samples[i].device_key;
    if (key == device) {
      own.push_back(i);
      continue;
    }
    if (hold_out == HoldOut::kCpu) {
      auto [it, added] = same_cpu.try_emplace(key, false);
      if (added) it->second = cpu_of_device(key) == cpu;
      if (it->second) continue;
    }
    s.train.push_back(i);
  }
  const auto n = static_cast<size_t>(std::max(0.0, share * static_cast<double>(own.size()) + 0.5));
  std::vector<size_t> chosen;
  if (selection == Selection::kKMeans) {
    chosen = kmeans_representatives(samples, own, n, seed);
  } else {
    chosen = own;
    std::mt19937_64 rng(seed);
    std::shuffle(chosen.begin(), chosen.end(), rng);
    chosen.resize(std::min(n, chosen.size()));
    std::sort(chosen.begin(), chosen.end());
  }
  std::set<size_t> picked(chosen.begin(), chosen.end());
  for (size_t i : own) (picked.count(i) ? s.fine_tune : s.test).push_back(i);
  char pct[32];
  std::snprintf(pct, sizeof pct, "%g%%", 100 * share);
  s.name = std::string(hold_out == HoldOut::kCpu ? "cross-cpu " : "cross-device ") + device + " " + pct + " " +
           selection_name(selection);
  return s;
}

}  // namespace tensorperf::costmodel
