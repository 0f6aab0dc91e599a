// Fuzz targets: functions that take arbitrary bytes and must neither crash nor break an invariant
// (an invariant broken aborts, so the driver and sanitizers see it as a crash). One per input surface
// that strangers' bytes reach: ONNX files, tuning-log lines, database URLs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tensorperf::fuzz {

struct Target {
  std::string name;
  // Runs one input; returns a short signature of what it did (a status code and the start of its
  // message), which the driver uses to keep inputs that do something new.
  std::function<std::string(const std::string& input)> run;
  std::vector<std::string> seeds;       // valid and near-valid inputs to start from
  std::vector<std::string> dictionary;  // tokens worth inserting
};

// "onnx", "line", "url".
const std::vector<Target>& targets();

}  // namespace tensorperf::fuzz
