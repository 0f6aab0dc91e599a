#include "costmodel/record_samples.h"

#include <algorithm>
#include <map>
#include <set>

#include "ir/workload.h"
#include "measure/record.h"

namespace tensorperf::costmodel {

Result<SampleSet> samples_from_store(db::RecordStore& store, const DeviceTable& devices,
                                     const SampleSetOptions& options) {
  if (devices.size() == 0) return Status::NotFound("no device descriptions: the samples need device vectors");
  std::vector<measure::Record> records;
  db::ScanFilter filter;
  filter.device_key = options.device_key;
  filter.format = db::RecordFormat::kNative;
  filter.with_config = false;
  TP_RETURN_IF_ERROR(store.scan(filter, [&](const db::StoredRecord& r) {
    if (r.error_no != 0 || !r.mean_cost) return Status::Ok();
    auto rec = measure::record_from_line(r.line);
    if (rec.ok() && rec->ok()) records.push_back(std::move(*rec));
    return Status::Ok();
  }));
  if (options.max_samples > 0 && records.size() > options.max_samples) {
    std::vector<measure::Record> kept;
    const double step = static_cast<double>(records.size()) / static_cast<double>(options.max_samples);
    for (size_t i = 0; i < options.max_samples; ++i) kept.push_back(std::move(records[static_cast<size_t>(i * step)]));
    records = std::move(kept);
  }
  // One program per (workload, provider, config, target).
  auto program_key = [](const measure::Record& r) {
    return r.workload_key + "\n" + r.provider + "\n" + r.config.dump() + "\n" + r.target;
  };
  std::map<std::string, std::optional<features::ProgramFeatures>> programs;
  for (const measure::Record& r : records) programs.emplace(program_key(r), std::nullopt);
  SampleSet set;
  size_t done = 0;
  std::map<std::string, bool> failed;
  for (const measure::Record& r : records) {
    const std::string key = program_key(r);
    auto& slot = programs[key];
    if (!slot && !failed.count(key)) {
      auto w = ir::parse_workload_key(r.workload_key);
      Result<features::ProgramFeatures> f =
          w.ok() ? features::program_features(*w, kernels::Config{r.provider, r.config}, r.target)
                 : Result<features::ProgramFeatures>(w.status());
      if (f.ok()) slot = std::move(*f);
      else failed[key] = true;
      if (options.progress && (++done % 50 == 0 || done == programs.size())) options.progress(done, programs.size());
    }
    if (!slot) {
      ++set.skipped;
      continue;
    }
    TP_ASSIGN_OR_RETURN(DeviceVector dv, devices.vector_for(r.device_key));
    if (!dv.exact &&
        std::find(set.closest_device.begin(), set.closest_device.end(), r.device_key) == set.closest_device.end())
      set.closest_device.push_back(r.device_key);
    Sample s;
    s.program = slot->pooled;
    s.leaves = slot->leaves;
    s.positions = slot->positions;
    s.device = std::move(dv.features);
    s.seconds = r.median_cost();
    s.workload = r.workload_key;
    s.device_key = r.device_key;
    s.provider = r.provider;
    set.samples.push_back(std::move(s));
  }
  return set;
}

}  // namespace tensorperf::costmodel
