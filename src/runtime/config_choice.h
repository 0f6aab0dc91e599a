// Which config runs a workload: the database's best for this device (tuned here), else the best of
// the closest device that has one (db::best_configs' fallback: same compile target, then same
// architecture), else a default (decided by the executor: the faster of oneDNN's and Halide's
// default config). The policy can also pin every workload to one provider's defaults, or to the
// plain C++ reference kernels.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "db/record_store.h"
#include "ir/workload.h"
#include "kernels/provider.h"

namespace tensorperf::runtime {

enum class ConfigPolicy {
  kDatabase,       // tuned > closest device > faster default
  kOnednn,         // oneDNN's default config wherever oneDNN supports the workload, else Halide's
  kHalideDefault,  // Halide's default config everywhere
  kReference,      // plain C++ reference kernels, one per graph node, nothing fused (for checking)
};
std::string_view policy_name(ConfigPolicy p);  // "db", "onednn", "halide", "reference"
Result<ConfigPolicy> parse_policy(std::string_view name);

enum class ConfigSource { kTuned, kClosestDevice, kDefault, kReference };
std::string_view source_name(ConfigSource s);  // "tuned", "closest", "default", "reference"
Result<ConfigSource> parse_source(std::string_view name);

struct ChosenConfig {
  kernels::Config config;
  ConfigSource source = ConfigSource::kDefault;
  std::string device;          // the device the record was measured on (tuned or closest)
  double measured_s = 0;       // the record's mean cost (tuned or closest); 0 for defaults
};

// The fastest error-free record of `w` in `store` for `device_key` (or the closest device, found by
// `target`, its Halide target string) whose provider is registered, supports `w` and accepts the
// config. nullopt when there is none.
Result<std::optional<ChosenConfig>> database_config(db::RecordStore& store, const ir::Workload& w,
                                                    const std::string& device_key, const std::string& target);

// The default config a stored config of `w` must beat to run (records age: a provider may have
// improved or changed its default since they were measured, and a closest device's best need not be
// this one's): oneDNN's default where oneDNN runs `w` and `stored` is another provider's; where
// oneDNN does not run `w`, the stored provider's own default when it is another config than
// `stored` (Halide's element-wise defaults became vectorized and parallel after most element-wise
// records had been measured with the old, scalar one-thread default). nullopt: nothing to compare.
std::optional<kernels::Config> rival_default(const ir::Workload& w, const kernels::Config& stored);

}  // namespace tensorperf::runtime
