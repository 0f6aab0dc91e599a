// Monotonic time in seconds (std::chrono::steady_clock), for durations: search and timing budgets.
#pragma once

#include <chrono>

namespace tensorperf {

inline double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace tensorperf
