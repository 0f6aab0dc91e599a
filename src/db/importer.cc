#include "db/importer.h"

#include <cstring>
#include <fstream>
#include <vector>

#include "db/line_parser.h"

namespace tensorperf::db {

Result<ImportReport> import_stream(RecordStore& store, std::istream& in, const std::string& name,
                                   const ImportOptions& options, const ProblemSink& on_problem) {
  ImportReport report;
  LineParser parser;
  std::vector<ParsedRecord> batch;
  batch.reserve(options.batch_size);
  InsertCounts counts;
  auto flush = [&]() -> Status {
    if (batch.empty()) return Status::Ok();
    TP_RETURN_IF_ERROR(store.insert(batch, counts).WithContext("importing " + name));
    batch.clear();
    return Status::Ok();
  };
  std::string line;
  while (std::getline(in, line)) {
    ++report.lines;
    if (is_skippable_line(line)) continue;
    Result<ParsedRecord> parsed = parser.parse(line);
    if (!parsed.ok()) {
      std::string problem = name + ":" + std::to_string(report.lines) + ": " + parsed.status().message();
      if (options.strict) return Status::InvalidArgument(problem + " (--strict: import stopped)");
      ++report.skipped;
      if (on_problem) on_problem(problem);
      continue;
    }
    ++report.records;
    batch.push_back(std::move(parsed).value());
    if (batch.size() >= options.batch_size) TP_RETURN_IF_ERROR(flush());
  }
  if (in.bad()) return Status::IoError("reading " + name + " failed after line " + std::to_string(report.lines));
  TP_RETURN_IF_ERROR(flush());
  report.inserted = counts.inserted;
  report.duplicates = counts.duplicates;
  return report;
}

Result<ImportReport> import_file(RecordStore& store, const std::string& path, const ImportOptions& options,
                                 const ProblemSink& on_problem) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot read " + path + ": " + std::strerror(errno));
  return import_stream(store, in, path, options, on_problem);
}

}  // namespace tensorperf::db
