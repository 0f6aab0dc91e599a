#include "cli/validators.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <regex>
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

// "90", "90s", "30m", "2h", "1h30m" -> seconds; InvalidArgument otherwise.
Result<double> parse_duration(const std::string& text) {
  static const std::regex re(R"(^\s*(?:(\d+(?:\.\d+)?)h)?\s*(?:(\d+(?:\.\d+)?)m)?\s*(?:(\d+(?:\.\d+)?)s?)?\s*$)");
  std::smatch m;
  if (text.empty() || !std::regex_match(text, m, re) || (!m[1].matched && !m[2].matched && !m[3].matched))
    return Status::InvalidArgument("--time-budget '" + text + "' is not a duration such as 90s, 30m or 2h");
  double s = 0;
  if (m[1].matched) s += 3600 * std::stod(m[1]);
  if (m[2].matched) s += 60 * std::stod(m[2]);
  if (m[3].matched) s += std::stod(m[3]);
  if (!(s > 0)) return Status::InvalidArgument("--time-budget must be longer than 0");
  return s;
}

}  // namespace tensorperf::cli
