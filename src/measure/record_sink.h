// Where measured records go, and the JSON-lines record file. The profiler writes each record as soon
// as it is measured, so a crash loses nothing measured before it. The database store (db/) is
// another RecordSink.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "measure/record.h"

namespace tensorperf::measure {

class RecordSink {
 public:
  virtual ~RecordSink() = default;
  // Stores one record; when it returns OK the record survives a crash of this process.
  virtual Status write(const Record& r) = 0;
};

// Appends one JSON line per record (record_to_line) to a file, created when missing; flushed after
// every record. A torn last line left by a crash is closed with a newline before appending.
class JsonLinesSink : public RecordSink {
 public:
  static Result<std::unique_ptr<JsonLinesSink>> open(const std::string& path);
  ~JsonLinesSink() override;
  Status write(const Record& r) override;

 private:
  JsonLinesSink(std::FILE* f, std::string path) : file_(f), path_(std::move(path)) {}
  std::FILE* file_;
  std::string path_;
};

struct RecordFile {
  std::vector<Record> records;
  int bad_lines = 0;  // malformed lines skipped (e.g. a torn last line); blank lines are not counted
};
// Reads a JSON-lines record file. A missing file is an empty list; an unreadable one an IoError.
Result<RecordFile> read_record_file(const std::string& path);

// Writes each record to several sinks in order (e.g. the record file and the database); stops at the
// first error. Does not own the sinks.
class FanoutSink : public RecordSink {
 public:
  void add(RecordSink* s) { sinks_.push_back(s); }
  Status write(const Record& r) override;

 private:
  std::vector<RecordSink*> sinks_;
};

}  // namespace tensorperf::measure
