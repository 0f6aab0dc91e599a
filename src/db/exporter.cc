#include "db/exporter.h"

#include <algorithm>
#include <unordered_map>

#include "db/best_selection.h"

namespace tensorperf::db {

Result<int64_t> export_records(RecordStore& store, const ExportOptions& options, std::ostream& out) {
  int64_t written = 0;
  ScanFilter filter = options.filter;
  filter.with_config = false;  // lines are what is written
  auto write = [&](const StoredRecord& r) -> Status {
    out.write(r.line.data(), static_cast<std::streamsize>(r.line.size()));
    out.put('\n');
    if (!out) return Status::IoError("writing the export failed (disk full or closed output?)");
    ++written;
    return Status::Ok();
  };
  if (options.selection == ExportSelection::kAll) {
    TP_RETURN_IF_ERROR(store.scan(filter, write));
    return written;
  }
  TP_ASSIGN_OR_RETURN(std::vector<DeviceDescription> devices, store.device_descriptions());
  std::unordered_map<std::string, const DeviceDescription*> by_key;
  for (const auto& d : devices) by_key.emplace(d.key, &d);
  BestSelection selection;
  TP_RETURN_IF_ERROR(store.scan(filter, [&](const StoredRecord& r) -> Status {
    auto it = by_key.find(r.device_key);
    if (it == by_key.end()) return Status::Internal("record " + std::to_string(r.id) + " names an unknown device");
    selection.add(r, *it->second);
    return Status::Ok();
  }));
  std::vector<int64_t> ids = selection.selected_ids();
  TP_RETURN_IF_ERROR(store.scan(filter, [&](const StoredRecord& r) -> Status {
    if (!std::binary_search(ids.begin(), ids.end(), r.id)) return Status::Ok();
    return write(r);
  }));
  return written;
}

}  // namespace tensorperf::db
