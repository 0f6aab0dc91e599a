// Wall-clock time as seconds since the Unix epoch: record timestamps and claim leases.
#pragma once

#include <chrono>

namespace tensorperf {

inline double unix_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace tensorperf
