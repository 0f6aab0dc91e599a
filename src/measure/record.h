// A record: one measurement of one config of one workload on one device, errors included. Every
// latency in the database is a Record. Native serialisation is one JSON object per line, close to
// AutoTVM's v0.2 layout:
//   {"input": {"workload": KEY, "device": DEVICE_KEY, "target": TARGET, "provider": "halide"},
//    "config": {KNOB: VALUE, ...},
//    "result": {"costs": [s, ...], "native_costs": [s, ...] (only when measured), "error_no": 0, "error_msg": "", "build_time": s, "run_time": s,
//               "timestamp": unix_s, "load": 1-minute load average (only when kept)},
//    "version": {"format": 1, "tensorperf": "0.1.0"}}
// Parsing then serialising a line gives the same JSON value (lossless; key order is the above).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace tensorperf::measure {

// AutoTVM's MeasureErrorNo numbering. Reaches disk and TVM logs: never change a value.
enum class ErrorCode : int {
  kNoError = 0,
  kInstantiationError = 1,  // the config does not fit the workload (bad knob value)
  kCompileHostError = 2,    // the kernel failed to compile or lower
  kCompileDeviceError = 3,
  kRuntimeDeviceError = 4,  // the kernel crashed or failed at run time
  kWrongAnswerError = 5,    // output differs from the reference kernel
  kBuildTimeoutError = 6,
  kRunTimeoutError = 7,
  kUnknownError = 8,
};
std::string_view error_name(ErrorCode e);  // "no_error", "instantiation", "compile_host", ...

inline constexpr int kRecordFormatVersion = 1;
std::string_view tensorperf_version();  // the project version, e.g. "0.1.0"

struct Record {
  std::string workload_key;  // ir::Workload::key()
  std::string device_key;    // measure::Device key
  std::string target;        // compile target, e.g. a Halide target string
  std::string provider;      // kernel provider: "halide", "onednn"
  nlohmann::json config = nlohmann::json::object();  // knob name -> value
  std::vector<double> costs;  // seconds, one per timing (repeat); empty on error
  // Seconds, one per timing, of the same kernel run as a graph runtime chains it: its activation
  // input and output already in its native layout (kernels/native_io.h), so without the
  // conversions `costs` includes. Measured for kernels that have a native layout (oneDNN's blocked
  // ones); empty for plain-layout kernels, on error, and in records made before it was measured.
  std::vector<double> native_costs;
  ErrorCode error = ErrorCode::kNoError;
  std::string error_msg;
  double build_time_s = 0;  // compile time (CPU time of the compiling thread)
  double run_time_s = 0;    // wall time of the whole timed run, reference check included
  double timestamp = 0;     // unix seconds
  double load = -1;         // the machine's 1-minute load average when measured (-1: not kept)
  // The host's clock when measured (Device::clock_mhz). One device key covers hosts of one CPU
  // model at different clocks; this tells their records apart. 0: not kept (older records).
  double clock_mhz = 0;
  std::string version = std::string(tensorperf_version());
  int format = kRecordFormatVersion;

  bool ok() const { return error == ErrorCode::kNoError && !costs.empty(); }
  double mean_cost() const;    // +inf on error (AutoTVM's convention)
  double median_cost() const;  // +inf on error
  double median_native_cost() const;  // +inf when native_costs is empty
};

nlohmann::json record_to_json(const Record& r);
Result<Record> record_from_json(const nlohmann::json& j);
// One line, no trailing newline. Strings that are not valid UTF-8 are written with U+FFFD in place
// of the invalid bytes (the only case where the round trip is not lossless).
std::string record_to_line(const Record& r);
Result<Record> record_from_line(std::string_view line);

}  // namespace tensorperf::measure
