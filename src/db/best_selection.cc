#include "db/best_selection.h"

#include <algorithm>

namespace tensorperf::db {
namespace {

// Separates the parts of a map key; NUL cannot end a JSON text, so parts cannot run together.
std::string join(std::string_view kind, std::string_view a, std::string_view b, std::string_view c) {
  std::string k(kind);
  for (std::string_view part : {a, b, c}) {
    k.push_back('\0');
    k.append(part);
  }
  return k;
}

}  // namespace

void BestSelection::offer(std::string key, const StoredRecord& record) {
  auto [it, inserted] = best_.try_emplace(std::move(key), Best{record.id, *record.mean_cost});
  if (!inserted && it->second.cost > *record.mean_cost) it->second = Best{record.id, *record.mean_cost};
}

void BestSelection::add(const StoredRecord& record, const DeviceDescription& device) {
  if (record.error_no != 0 || !record.mean_cost) return;
  if (record.format == RecordFormat::kNative) {
    offer(join("device", "native", device.key, record.workload_key), record);
    return;
  }
  std::string_view family = record.format == RecordFormat::kAnsor ? "ansor" : "autotvm";
  for (const std::string& k : device.keys) offer(join("key", family, k, record.workload_key), record);
  if (!device.model.empty() && device.model != "unknown")
    offer(join("model", family, device.model, record.workload_key), record);
}

std::vector<int64_t> BestSelection::selected_ids() const {
  std::vector<int64_t> ids;
  ids.reserve(best_.size());
  for (const auto& [key, best] : best_) ids.push_back(best.id);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace tensorperf::db
