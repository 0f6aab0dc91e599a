#include "costmodel/metrics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

namespace tensorperf::costmodel {

Metrics evaluate(std::span<const double> predicted, std::span<const double> measured,
                 std::span<const std::string> group) {
  Metrics m;
  m.samples = predicted.size();
  if (m.samples == 0) return m;
  double ape = 0, sq = 0;
  size_t w10 = 0, w20 = 0;
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t i = 0; i < predicted.size(); ++i) {
    const double e = percentage_error(predicted[i], measured[i]);
    ape += e;
    w10 += e <= 0.10;
    w20 += e <= 0.20;
    const double d = std::log(std::max(predicted[i], 1e-12)) - std::log(measured[i]);
    sq += d * d;
    groups[group[i]].push_back(i);
  }
  const double n = static_cast<double>(m.samples);
  m.mape = ape / n;
  m.rmse_log = std::sqrt(sq / n);
  m.within_10 = static_cast<double>(w10) / n;
  m.within_20 = static_cast<double>(w20) / n;
  double right = 0, pairs = 0, top1 = 0, top5 = 0;
  for (auto& [name, rows] : groups) {
    if (rows.size() < 2) continue;
    ++m.groups;
    for (size_t a = 0; a < rows.size(); ++a)
      for (size_t b = a + 1; b < rows.size(); ++b) {
        const double dm = measured[rows[a]] - measured[rows[b]];
        if (dm == 0) continue;
        const double dp = predicted[rows[a]] - predicted[rows[b]];
        pairs += 1;
        right += (dm < 0) == (dp < 0) && dp != 0 ? 1 : 0;
      }
    double real_best = measured[rows[0]];
    for (size_t r : rows) real_best = std::min(real_best, measured[r]);
    std::vector<size_t> by_prediction = rows;
    std::sort(by_prediction.begin(), by_prediction.end(), [&](size_t x, size_t y) { return predicted[x] < predicted[y]; });
    auto score = [&](size_t k) {
      double picked = measured[by_prediction[0]];
      for (size_t i = 0; i < std::min(k, by_prediction.size()); ++i) picked = std::min(picked, measured[by_prediction[i]]);
      return real_best / picked;
    };
    top1 += score(1);
    top5 += score(5);
  }
  m.pairwise = pairs > 0 ? right / pairs : 0;
  if (m.groups > 0) {
    m.top1 = top1 / static_cast<double>(m.groups);
    m.top5 = top5 / static_cast<double>(m.groups);
  }
  return m;
}

nlohmann::json metrics_to_json(const Metrics& m) {
  return {{"samples", m.samples}, {"mape", m.mape},           {"rmse_log", m.rmse_log}, {"within_10", m.within_10},
          {"within_20", m.within_20}, {"pairwise", m.pairwise}, {"top1", m.top1},         {"top5", m.top5},
          {"groups", m.groups}};
}

}  // namespace tensorperf::costmodel
