#include "cli/model_timing.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include <fmt/format.h>

#include "cli/exit.h"

namespace tensorperf::cli {

Latency time_runs(runtime::Executor& ex, int repeat) {
  std::vector<double> runs;
  for (int r = 0; r < std::max(repeat, 1); ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    check(ex.run());
    runs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(runs.begin(), runs.end());
  Latency l;
  l.p50_s = runs[runs.size() / 2];
  l.p90_s = runs[std::min(runs.size() - 1, static_cast<size_t>(0.9 * static_cast<double>(runs.size() - 1) + 0.5))];
  l.min_s = runs.front();
  return l;
}

std::string Coverage::line() const {
  std::string s = fmt::format("{} of {} workloads tuned on this device", tuned, tuned + closest + defaults);
  for (const auto& [dev, n] : closest_devices) s += fmt::format(", {} from {}", n, dev);
  return s + fmt::format(", {} default", defaults);
}

Coverage coverage_of(const runtime::Executor& ex) {
  std::map<std::string, const runtime::StepInfo*> workloads;
  for (const runtime::StepInfo& s : ex.steps())
    if (!s.workload.empty()) workloads.emplace(s.workload, &s);
  Coverage c;
  for (const auto& [key, s] : workloads) {
    if (s->source == runtime::ConfigSource::kTuned) ++c.tuned;
    else if (s->source == runtime::ConfigSource::kClosestDevice) ++c.closest, ++c.closest_devices[s->device];
    else ++c.defaults;
  }
  return c;
}

}  // namespace tensorperf::cli
