// The SQLite backend of RecordStore: one file in WAL mode, a busy timeout so that concurrent
// writer processes wait for each other instead of failing, one transaction per insert() batch.
// Lines are kept in zstd-compressed chunks of consecutive records (schema version 2; see
// docs/database.md and db/record_chunk.h).
#pragma once

#include <memory>
#include <string>

#include "db/record_store.h"

namespace tensorperf::db {

Result<std::unique_ptr<RecordStore>> open_sqlite_store(const std::string& path, OpenMode mode);

}  // namespace tensorperf::db
