#include "cli/validators.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace tensorperf::cli {
namespace {

// The number `s` holds entirely, or nullopt.
bool parse_double(const std::string& s, double& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtod(s.c_str(), &end);
  return errno == 0 && end == s.c_str() + s.size() && std::isfinite(out);
}

}  // namespace

CLI::Validator positive() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        double v = 0;
        if (!parse_double(s, v) || !(v > 0)) return "must be a number greater than 0, got '" + s + "'";
        return "";
      },
      "POSITIVE");
}

CLI::Validator non_negative() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        double v = 0;
        if (!parse_double(s, v) || v < 0) return "must be a number of at least 0, got '" + s + "'";
        return "";
      },
      "NONNEGATIVE");
}

CLI::Validator whole_range(long long lo, long long hi) {
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string {
        char* end = nullptr;
        errno = 0;
        long long v = std::strtoll(s.c_str(), &end, 10);
        if (s.empty() || errno != 0 || end != s.c_str() + s.size() || v < lo || v > hi)
          return "must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got '" + s + "'";
        return "";
      },
      "INT in [" + std::to_string(lo) + " - " + std::to_string(hi) + "]");
}

CLI::Validator uint64_value() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        char* end = nullptr;
        errno = 0;
        if (!s.empty() && s[0] != '-') {
          (void)std::strtoull(s.c_str(), &end, 10);
          if (errno == 0 && end == s.c_str() + s.size()) return "";
        }
        return "must be a whole number from 0 to 18446744073709551615, got '" + s + "'";
      },
      "UINT64");
}

}  // namespace tensorperf::cli
