// How good a cost model's predictions are, as CDMPP and Tenset report it: errors (MAPE, RMSE of
// log latency, share within +-10% and +-20%), and what a tuner cares about: ranking within a
// workload (pairwise accuracy) and the measured speed of the configs it would pick (top-k score).
#pragma once

#include <cmath>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

namespace tensorperf::costmodel {

struct Metrics {
  size_t samples = 0;
  double mape = 0;          // mean |predicted - measured| / measured
  double rmse_log = 0;      // root mean squared error of ln(predicted) - ln(measured)
  double within_10 = 0;     // share with |error| <= 10%
  double within_20 = 0;
  double pairwise = 0;      // share of pairs of one group (different measured costs) ordered right
  double top1 = 0, top5 = 0;  // per group: best measured / measured of the best of the predicted top k
  size_t groups = 0;          // groups with at least two samples (what pairwise and top-k average over)
};

// |predicted - measured| / measured, the term of the MAPE. REQUIRES: measured > 0.
inline double percentage_error(double predicted, double measured) { return std::abs(predicted - measured) / measured; }

// `group[i]` names sample i's group (a workload on a device): rankings only compare within one.
// REQUIRES: the three spans have the same length; measured > 0.
Metrics evaluate(std::span<const double> predicted, std::span<const double> measured,
                 std::span<const std::string> group);

nlohmann::json metrics_to_json(const Metrics& m);

}  // namespace tensorperf::costmodel
