// Writes stored records back out as the lines they were imported from (TVM logs stay TVM logs,
// tensorperf records stay JSON lines), in insertion order.
#pragma once

#include <cstdint>
#include <ostream>

#include "db/record_store.h"

namespace tensorperf::db {

enum class ExportSelection {
  kAll,   // every record
  kBest,  // per workload, the records TVM's apply_history_best would pick (see best_selection.h)
};

struct ExportOptions {
  ExportSelection selection = ExportSelection::kAll;
  ScanFilter filter;
};

// Returns how many records were written, one line each.
Result<int64_t> export_records(RecordStore& store, const ExportOptions& options, std::ostream& out);

}  // namespace tensorperf::db
