#include "db/record_store.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include "db/pg_store.h"
#include "db/sqlite_store.h"
#include "db/store_url.h"

namespace tensorperf::db {

Result<std::unique_ptr<RecordStore>> open_store(std::string_view url, OpenMode mode) {
  if (url.empty()) return Status::InvalidArgument("the database URL is empty; give a file path or postgresql://...");
  if (is_postgres_url(url)) return open_pg_store(std::string(url), mode);
  return open_sqlite_store(std::string(url), mode);
}

Status RecordStore::insert_blocks(RecordBlocks& blocks, size_t expected, InsertCounts& counts) {
  std::vector<ParsedRecord> batch;
  batch.reserve(expected);
  for (;;) {
    TP_ASSIGN_OR_RETURN(RecordBlock block, blocks.next());
    if (block.records.empty()) break;
    batch.insert(batch.end(), block.records.begin(), block.records.end());
  }
  if (batch.empty()) return Status::Ok();
  return insert(batch, counts);
}

Status add_record(RecordStore& store, const measure::Record& record) {
  if (record.ok())
    for (const std::vector<double>* costs : {&record.costs, &record.native_costs})
      for (double c : *costs)
        if (!plausible_cost(c))
          return Status::InvalidArgument("refusing to store a record with the impossible cost " + std::to_string(c) +
                                         " s of " + record.workload_key);
  ParsedRecord parsed = parsed_from_native(record);
  if (parsed.line.size() > kMaxLineBytes)
    return Status::InvalidArgument("refusing to store a record of " + std::to_string(parsed.line.size()) +
                                   " bytes (the limit is " + std::to_string(kMaxLineBytes) + ")");
  InsertCounts counts;
  return store.insert(std::span<const ParsedRecord>(&parsed, 1), counts);
}

namespace {

// Field 22 of /proc/PID/stat: the process's start time in clock ticks since boot; empty when gone.
std::string start_time(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return "";
  size_t close = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return "";
  std::istringstream rest(stat.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
  }
  return field;
}

std::string host_name() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return "unknown-host";
  return buf;
}

}  // namespace

const std::string& claim_owner() {
  // Per process: a child forked after the first call is another owner.
  static thread_local pid_t pid = 0;
  static thread_local std::string owner;
  if (pid != ::getpid()) {
    pid = ::getpid();
    owner = host_name() + ":" + std::to_string(pid) + ":" + start_time(pid);
  }
  return owner;
}

bool claim_owner_dead(std::string_view owner) {
  // host:pid:start, the host possibly holding ':'.
  size_t last = owner.rfind(':');
  if (last == std::string_view::npos || last == 0) return false;
  size_t middle = owner.rfind(':', last - 1);
  if (middle == std::string_view::npos) return false;
  if (owner.substr(0, middle) != host_name()) return false;
  long pid = 0;
  try {
    pid = std::stol(std::string(owner.substr(middle + 1, last - middle - 1)));
  } catch (const std::exception&) {
    return false;
  }
  return start_time(pid) != owner.substr(last + 1);
}

}  // namespace tensorperf::db
