#include "measure/record_sink.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace tensorperf::measure {

Result<std::unique_ptr<JsonLinesSink>> JsonLinesSink::open(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "a+");
  if (!f) return Status::IoError("cannot open record file " + path + " for appending: " + std::strerror(errno));
  // Close a torn last line so the next record starts on a line of its own.
  if (std::fseek(f, 0, SEEK_END) == 0 && std::ftell(f) > 0 && std::fseek(f, -1, SEEK_END) == 0) {
    int last = std::fgetc(f);
    std::fseek(f, 0, SEEK_END);
    if (last != '\n') std::fputc('\n', f);
  }
  return std::unique_ptr<JsonLinesSink>(new JsonLinesSink(f, path));
}

JsonLinesSink::~JsonLinesSink() { std::fclose(file_); }

Status JsonLinesSink::write(const Record& r) {
  std::string line = record_to_line(r) + "\n";
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0)
    return Status::IoError("cannot write to record file " + path_ + ": " + std::strerror(errno));
  return Status::Ok();
}

Result<RecordFile> read_record_file(const std::string& path) {
  RecordFile out;
  std::ifstream in(path);
  if (!in) {
    if (::access(path.c_str(), F_OK) != 0) return out;
    return Status::IoError("cannot read record file " + path);
  }
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto r = record_from_line(line);
    if (r.ok()) {
      out.records.push_back(std::move(r).value());
    } else {
      ++out.bad_lines;
    }
  }
  return out;
}

Status FanoutSink::write(const Record& r) {
  for (RecordSink* s : sinks_) TP_RETURN_IF_ERROR(s->write(r));
  return Status::Ok();
}

}  // namespace tensorperf::measure
