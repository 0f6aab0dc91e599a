#include "db/importer.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <future>
#include <vector>

#include "db/line_parser.h"

namespace tensorperf::db {
namespace {

// Reads lines and parses them into batches, reusing the records' buffers from batch to batch.
class BatchReader {
 public:
  BatchReader(std::istream& in, const std::string& name, const ImportOptions& options, const ProblemSink& on_problem)
      : in_(in), name_(name), options_(options), on_problem_(on_problem) {}

  // Fills batch[0, n) with the next records; n == 0 at the end of the input.
  Status fill(std::vector<ParsedRecord>& batch, size_t& n) {
    n = 0;
    while (n < options_.batch_size && std::getline(in_, line_)) {
      ++report_.lines;
      if (is_skippable_line(line_)) continue;
      if (n == batch.size()) batch.emplace_back();
      Status s = parser_.parse_into(line_, batch[n]);
      if (!s.ok()) {
        std::string problem = name_ + ":" + std::to_string(report_.lines) + ": " + s.message();
        if (options_.strict) return Status::InvalidArgument(problem + " (--strict: import stopped)");
        ++report_.skipped;
        if (on_problem_) on_problem_(problem);
        continue;
      }
      ++report_.records;
      ++n;
    }
    if (in_.bad()) return Status::IoError("reading " + name_ + " failed after line " + std::to_string(report_.lines));
    return Status::Ok();
  }

  const ImportReport& report() const { return report_; }

 private:
  std::istream& in_;
  const std::string& name_;
  const ImportOptions& options_;
  const ProblemSink& on_problem_;
  LineParser parser_;
  std::string line_;
  ImportReport report_;
};

}  // namespace

Result<ImportReport> import_stream(RecordStore& store, std::istream& in, const std::string& name,
                                   const ImportOptions& options, const ProblemSink& on_problem) {
  if (options.batch_size == 0) return Status::InvalidArgument("the import batch size must be at least 1");
  BatchReader reader(in, name, options, on_problem);
  std::vector<ParsedRecord> current, next;
  size_t n_current = 0, n_next = 0;
  TP_RETURN_IF_ERROR(reader.fill(current, n_current));
  InsertCounts counts;
  while (n_current > 0) {
    // Parse the next batch while this one is stored.
    std::future<Status> parsing = std::async(std::launch::async, [&] { return reader.fill(next, n_next); });
    Status stored = store.insert(std::span<const ParsedRecord>(current.data(), n_current), counts);
    Status parsed = parsing.get();
    TP_RETURN_IF_ERROR(stored.WithContext("importing " + name));
    TP_RETURN_IF_ERROR(parsed);
    std::swap(current, next);
    n_current = n_next;
  }
  ImportReport report = reader.report();
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
