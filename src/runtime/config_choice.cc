#include "runtime/config_choice.h"

#include "db/best_configs.h"
#include "measure/record.h"

namespace tensorperf::runtime {

std::string_view policy_name(ConfigPolicy p) {
  switch (p) {
    case ConfigPolicy::kDatabase: return "db";
    case ConfigPolicy::kOnednn: return "onednn";
    case ConfigPolicy::kHalideDefault: return "halide";
    case ConfigPolicy::kReference: return "reference";
  }
  return "unknown";
}

Result<ConfigPolicy> parse_policy(std::string_view name) {
  for (ConfigPolicy p : {ConfigPolicy::kDatabase, ConfigPolicy::kOnednn, ConfigPolicy::kHalideDefault,
                         ConfigPolicy::kReference})
    if (policy_name(p) == name) return p;
  return Status::InvalidArgument("unknown config policy '" + std::string(name) +
                                 "' (known: db, onednn, halide, reference)");
}

std::string_view source_name(ConfigSource s) {
  switch (s) {
    case ConfigSource::kTuned: return "tuned";
    case ConfigSource::kClosestDevice: return "closest";
    case ConfigSource::kDefault: return "default";
    case ConfigSource::kReference: return "reference";
  }
  return "unknown";
}

Result<ConfigSource> parse_source(std::string_view name) {
  for (ConfigSource s : {ConfigSource::kTuned, ConfigSource::kClosestDevice, ConfigSource::kDefault, ConfigSource::kReference})
    if (source_name(s) == name) return s;
  return Status::InvalidArgument("unknown config source '" + std::string(name) + "'");
}

Result<std::optional<ChosenConfig>> database_config(db::RecordStore& store, const ir::Workload& w,
                                                    const std::string& device_key, const std::string& target) {
  TP_ASSIGN_OR_RETURN(db::BestConfigs best, db::best_configs(store, w.key(), device_key, 16, target));
  for (const db::StoredRecord& s : best.records) {
    if (s.format != db::RecordFormat::kNative) continue;
    Result<measure::Record> r = measure::record_from_line(s.line);
    if (!r.ok() || !r->ok()) continue;
    Result<const kernels::Provider*> p = kernels::find_provider(r->provider);
    if (!p.ok() || !(*p)->supports(w)) continue;
    kernels::Config c{r->provider, r->config};
    if (!(*p)->validate(w, c).ok()) continue;
    ChosenConfig chosen;
    chosen.config = std::move(c);
    chosen.source = best.match == db::DeviceMatch::kExact ? ConfigSource::kTuned : ConfigSource::kClosestDevice;
    chosen.device = r->device_key;
    chosen.measured_s = r->mean_cost();
    return std::optional<ChosenConfig>(std::move(chosen));
  }
  return std::optional<ChosenConfig>();
}

std::optional<kernels::Config> rival_default(const ir::Workload& w, const kernels::Config& stored) {
  Result<const kernels::Provider*> onednn = kernels::find_provider("onednn");
  if (onednn.ok() && (*onednn)->supports(w)) {
    if (stored.provider == "onednn") return std::nullopt;
    return (*onednn)->default_config(w);
  }
  Result<const kernels::Provider*> own = kernels::find_provider(stored.provider);
  if (!own.ok() || !(*own)->supports(w)) return std::nullopt;
  kernels::Config d = (*own)->default_config(w);
  if (d.knobs == stored.knobs) return std::nullopt;
  return d;
}

}  // namespace tensorperf::runtime
