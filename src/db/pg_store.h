// The PostgreSQL backend of RecordStore (libpqxx): a shared server for a team or a cluster.
// Batches go through COPY into a session-local staging table, then one INSERT ... ON CONFLICT DO
// NOTHING per table, in one transaction, retried when the server reports a deadlock between
// concurrent writers. Text columns are bytea, so any byte (NUL, invalid UTF-8) is stored as given.
#pragma once

#include <memory>
#include <string>

#include "db/record_store.h"

namespace tensorperf::db {

// `url` is a libpq connection URL; PG* environment variables fill in what it leaves out.
Result<std::unique_ptr<RecordStore>> open_pg_store(const std::string& url, OpenMode mode);

}  // namespace tensorperf::db
