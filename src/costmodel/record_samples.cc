#include "costmodel/record_samples.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "features/feature_cache.h"
#include "ir/workload.h"
#include "measure/record.h"

namespace tensorperf::costmodel {
namespace {

// What a record measured, as text: its workload, provider, config and target (a config's JSON text
// is the costly part: each use builds it once per record).
std::string program_text(const measure::Record& r) {
  return r.workload_key + "\n" + r.provider + "\n" + r.config.dump() + "\n" + r.target;
}

}  // namespace

Result<SampleSet> samples_from_store(db::RecordStore& store, const DeviceTable& devices,
                                     const SampleSetOptions& options) {
  if (devices.size() == 0) return Status::NotFound("no device descriptions: the samples need device vectors");
  SampleSet set;
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
  if (options.newest_session_hours > 0) {
    // Each record's program on its device, numbered once.
    std::map<std::string, size_t> program_ids;
    std::vector<size_t> program_of(records.size());
    for (size_t i = 0; i < records.size(); ++i)
      program_of[i] =
          program_ids.try_emplace(records[i].device_key + "\n" + program_text(records[i]), program_ids.size()).first->second;
    std::vector<double> newest(program_ids.size(), -std::numeric_limits<double>::infinity());
    for (size_t i = 0; i < records.size(); ++i) newest[program_of[i]] = std::max(newest[program_of[i]], records[i].timestamp);
    const double window_s = options.newest_session_hours * 3600;
    std::vector<measure::Record> kept;
    kept.reserve(records.size());
    for (size_t i = 0; i < records.size(); ++i)
      if (records[i].timestamp >= newest[program_of[i]] - window_s) kept.push_back(std::move(records[i]));
    set.superseded = records.size() - kept.size();
    records = std::move(kept);
  }
  if (options.max_samples > 0 && records.size() > options.max_samples) {
    std::vector<measure::Record> kept;
    const double step = static_cast<double>(records.size()) / static_cast<double>(options.max_samples);
    for (size_t i = 0; i < options.max_samples; ++i) kept.push_back(std::move(records[static_cast<size_t>(i * step)]));
    records = std::move(kept);
  }
  // One program per (workload, provider, config, target, chained): a record with native costs
  // gives a second sample, of its program as a graph chains it (features::ProgramRef::chained).
  // Each entry's program is numbered once: `programs` holds the features of program i.
  struct Entry {
    const measure::Record* record;
    bool chained;
    size_t program = 0;
  };
  std::vector<Entry> entries;
  for (const measure::Record& r : records) {
    entries.push_back({&r, false});
    if (!r.native_costs.empty()) entries.push_back({&r, true});
  }
  std::vector<std::optional<features::ProgramFeatures>> programs;
  std::vector<const Entry*> firsts;
  {
    std::map<std::string, size_t> ids;
    for (Entry& e : entries) {
      const measure::Record& r = *e.record;
      const std::string key = program_text(r) + (e.chained ? "\nchained" : "");
      auto [it, added] = ids.try_emplace(key, ids.size());
      e.program = it->second;
      if (added) firsts.push_back(&e);
    }
    programs.resize(ids.size());
  }
  // Featurised in chunks (Halide lowering in forked workers, one per chunk), or read from the feature
  // cache; progress after each.
  constexpr size_t kChunk = 200;
  for (size_t begin = 0; begin < firsts.size(); begin += kChunk) {
    const size_t end = std::min(firsts.size(), begin + kChunk);
    std::vector<features::ProgramRef> chunk;
    std::vector<size_t> ids;
    for (size_t i = begin; i < end; ++i) {
      const measure::Record& r = *firsts[i]->record;
      auto w = ir::parse_workload_key(r.workload_key);
      if (!w.ok()) continue;  // no features: its records count as skipped
      chunk.push_back({std::move(*w), kernels::Config{r.provider, r.config}, r.target, firsts[i]->chained});
      ids.push_back(firsts[i]->program);
    }
    std::vector<Result<features::ProgramFeatures>> f =
        options.feature_cache != nullptr ? options.feature_cache->features(chunk) : features::program_features(chunk);
    for (size_t k = 0; k < f.size(); ++k)
      if (f[k].ok()) programs[ids[k]] = std::move(*f[k]);
    if (options.progress) options.progress(end, firsts.size());
  }
  for (const Entry& e : entries) {
    const measure::Record& r = *e.record;
    const auto& slot = programs[e.program];
    if (!slot) {
      ++set.skipped;
      continue;
    }
    TP_ASSIGN_OR_RETURN(DeviceVector dv, devices.vector_for(r.device_key));
    if (!dv.exact &&
        std::find(set.closest_device.begin(), set.closest_device.end(), r.device_key) == set.closest_device.end())
      set.closest_device.push_back(r.device_key);
    // Another host of the key: its seconds at the description's clock, to first order.
    double clock_scale = 1;
    if (const measure::Device* d = devices.find(dv.described_by);
        d != nullptr && d->clock_mhz > 0 && r.clock_mhz > 0 && std::abs(r.clock_mhz / d->clock_mhz - 1) > 0.01) {
      if (!e.chained) {
        OffClock& off = set.off_clock[r.device_key];
        off.described_by = dv.described_by;
        off.described_mhz = d->clock_mhz;
        off.scaled = dv.exact && options.clock_normalise;
        ++off.records[std::lround(r.clock_mhz)];
      }
      if (dv.exact && options.clock_normalise) clock_scale = r.clock_mhz / d->clock_mhz;
    }
    Sample s;
    s.program = slot->pooled;
    s.leaves = slot->leaves;
    s.positions = slot->positions;
    s.device = std::move(dv.features);
    s.seconds = clock_scale * (e.chained ? r.median_native_cost() : r.median_cost());
    s.workload = r.workload_key;
    s.device_key = r.device_key;
    s.provider = r.provider;
    s.config = r.config.dump();
    s.chained = e.chained;
    set.samples.push_back(std::move(s));
  }
  return set;
}

}  // namespace tensorperf::costmodel
