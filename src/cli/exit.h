// How a subcommand fails: it throws CommandFailed with a one-line message for the user; main()
// prints "tensorperf: error: <message>" to stderr and exits with the code (never 0).
#pragma once

#include <stdexcept>
#include <string>

#include "base/status.h"

namespace tensorperf::cli {

inline constexpr int kExitFailure = 1;  // the operation failed (bad input, a missing file, ...)
inline constexpr int kExitUsage = 2;    // the command line is wrong (CLI11 uses this too)
inline constexpr int kExitUnsupported = 3;  // the input is valid but uses what tensorperf does not support
                                            // (an operator, attribute, opset or dtype)

class CommandFailed : public std::runtime_error {
 public:
  explicit CommandFailed(const std::string& msg, int exit_code = kExitFailure)
      : std::runtime_error(msg), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

inline int exit_code_of(const Status& s) {
  return s.code() == StatusCode::kUnsupported ? kExitUnsupported : kExitFailure;
}

// Throws CommandFailed carrying the status message when `s` is not OK (exit 3 for Unsupported).
inline void check(const Status& s) {
  if (!s.ok()) throw CommandFailed(s.message(), exit_code_of(s));
}
template <typename T>
T check(Result<T> r) {
  if (!r.ok()) throw CommandFailed(r.status().message(), exit_code_of(r.status()));
  return std::move(r).value();
}

}  // namespace tensorperf::cli
