#include "db/db_record_sink.h"

namespace tensorperf::db {

Result<int64_t> index_store_records(RecordStore& store, const std::string& device_key,
                                    measure::MeasuredIndex& index) {
  ScanFilter filter;
  filter.device_key = device_key;
  filter.format = RecordFormat::kNative;
  filter.with_config = false;
  int64_t added = 0;
  TP_RETURN_IF_ERROR(store.scan(filter, [&](const StoredRecord& s) -> Status {
    TP_ASSIGN_OR_RETURN(measure::Record r, measure::record_from_line(s.line));
    index.add(r);
    ++added;
    return Status::Ok();
  }));
  return added;
}

}  // namespace tensorperf::db
