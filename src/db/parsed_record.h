// A record as the store keeps it, whatever format it came from: the original line (re-exported
// verbatim) and the columns the queries need. Produced by LineParser or from a measure::Record.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "db/target_info.h"
#include "measure/record.h"

namespace tensorperf::db {

// Reaches disk as an integer: never change a value.
enum class RecordFormat : int {
  kAutotvmV01 = 1,  // AutoTVM log, "i"/"r"/"v"
  kAutotvmV02 = 2,  // AutoTVM log, "input"/"config"/"result"
  kAnsor = 3,       // auto_scheduler log, "i"/"r"/"v" with transform steps
  kNative = 4,      // tensorperf record (measure/record.h)
};
std::string_view format_name(RecordFormat f);  // "autotvm-v0.1", "autotvm-v0.2", "ansor", "native"

struct ParsedRecord {
  RecordFormat format = RecordFormat::kNative;
  std::string line;          // the stored line, without its newline; export writes it back as is
  std::string hash;          // content_hash(line)
  std::string workload_key;  // opaque: TVM task name + args as compact JSON, ansor key, tensorperf key
  DeviceDescription device;  // device.key is the TVM target string or the tensorperf device key
  std::string provider;      // "autotvm", "ansor", or the tensorperf kernel provider
  std::string config;        // compact JSON of the config (AutoTVM config, ansor steps, knobs)
  uint64_t config_key = 0;   // config_key(provider, config)
  int error_no = 0;
  std::optional<double> mean_cost;  // seconds; set exactly when error_no == 0
  std::string costs;                // compact JSON array of the costs as logged
  double build_time_s = 0;          // AutoTVM all_cost / tensorperf build_time
  double timestamp = 0;
  std::string version;  // tool version that wrote the record ("0.7.dev0", "v0.6", "0.1.0")
};

// The stored form of a tensorperf record; the line is record_to_line(r).
ParsedRecord parsed_from_native(const measure::Record& r);

// The longest line a record may have. Longer lines are skipped, with their reason, before they are
// read into memory (imports read at most about two of them at a time); the store's chunks are sized
// for kChunkRecords lines of this length, so every stored chunk stays readable.
inline constexpr size_t kMaxLineBytes = size_t{1} << 20;

// A measured cost that can be real: finite and between 1 ps and 11.6 days (1e6 s). Zero, negative,
// subnormal, NaN and infinite costs of an error-free record make the line malformed.
inline constexpr double kMinCostS = 1e-12, kMaxCostS = 1e6;
bool plausible_cost(double seconds);

}  // namespace tensorperf::db
