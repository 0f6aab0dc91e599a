#include "db/record_store.h"

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
  ParsedRecord parsed = parsed_from_native(record);
  InsertCounts counts;
  return store.insert(std::span<const ParsedRecord>(&parsed, 1), counts);
}

}  // namespace tensorperf::db
