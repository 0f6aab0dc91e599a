// Option checks with one-line messages a user can act on (CLI11's own print ranges of 300 digits
// and accept a seed that overflows).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "base/status.h"

namespace tensorperf::cli {

CLI::Validator positive();      // a number > 0
CLI::Validator non_negative();  // a number >= 0
CLI::Validator whole_range(long long lo, long long hi);  // a whole number in [lo, hi]
CLI::Validator uint64_value();  // a whole number in [0, 2^64 - 1]

// --time-budget: "90", "90s", "30m", "2h", "1h30m" -> seconds > 0; InvalidArgument otherwise.
Result<double> parse_duration(const std::string& text);

}  // namespace tensorperf::cli
