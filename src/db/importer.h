// Imports record files (AutoTVM v0.1/v0.2 logs, auto_scheduler logs, tensorperf JSON lines; one
// file may mix them) into a store, in batches of one transaction each. Re-importing a file, or
// finishing an import that was killed, stores nothing twice: records already stored are skipped.
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <string>

#include "db/record_store.h"

namespace tensorperf::db {

struct ImportOptions {
  bool strict = false;       // the first malformed line fails the import (earlier batches stay stored)
  // Records per transaction. Large batches write each index page fewer times (a batch of random
  // content hashes dirties most of the hash index). Memory does not grow with it: records are
  // parsed into a few reused blocks of 1024 that the store takes in turn.
  size_t batch_size = 100000;
};

struct ImportReport {
  int64_t lines = 0;       // every line read, comments and blank lines included
  int64_t records = 0;     // lines that held a record
  int64_t inserted = 0;    // records new to the store
  int64_t duplicates = 0;  // records already stored (or repeated in the input)
  int64_t skipped = 0;     // malformed lines
};

// Called once per malformed line with "name:line: reason", in line order, from the thread that
// parses (not the caller's: parsing overlaps storing).
using ProblemSink = std::function<void(const std::string&)>;

// `name` labels problems (the file path). A malformed line is reported, counted and skipped, or
// with options.strict becomes an InvalidArgument error naming it.
Result<ImportReport> import_stream(RecordStore& store, std::istream& in, const std::string& name,
                                   const ImportOptions& options, const ProblemSink& on_problem);
// Opens `path` and imports it; a name ending in .zst is read as zstd-compressed (`zstd` writes it).
// NotFound when it cannot be read; Corruption for a damaged .zst file.
Result<ImportReport> import_file(RecordStore& store, const std::string& path, const ImportOptions& options,
                                 const ProblemSink& on_problem);

}  // namespace tensorperf::db
