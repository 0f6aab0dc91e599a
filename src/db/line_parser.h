// Parses one line of an AutoTVM log (v0.1 or v0.2), an auto_scheduler log, or a tensorperf record
// file into a ParsedRecord. Formats are told apart by their keys, line by line, so one file may mix
// them. Not thread-safe: one LineParser per thread (it reuses its parse buffers).
#pragma once

#include <memory>
#include <string_view>

#include "base/status.h"
#include "db/parsed_record.h"

namespace tensorperf::db {

// Blank lines and lines starting with '#' carry no record.
bool is_skippable_line(std::string_view line);

class LineParser {
 public:
  LineParser();
  ~LineParser();
  LineParser(const LineParser&) = delete;
  LineParser& operator=(const LineParser&) = delete;

  // A Corruption status names what is wrong with the line ("not valid JSON", "\"r\"[1] ... ").
  // REQUIRES: !is_skippable_line(line).
  Result<ParsedRecord> parse(std::string_view line);
  // The same into `out`, reusing its buffers (what bulk imports call); `out` is unspecified on error.
  Status parse_into(std::string_view line, ParsedRecord& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tensorperf::db
