// Samples from measured records: every error-free native record of a store becomes a Sample with
// its program's features (computed once per (workload, provider, config, target): the 1- and
// 2-thread devices of one ISA level share them) and its device's vector from a DeviceTable. A
// record with native costs (measure::Record::native_costs) gives a second sample: its program as a
// graph chains it ("config.chained_io" = 1), labelled with the native costs' median.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "costmodel/device_table.h"
#include "costmodel/sample.h"
#include "db/record_store.h"

namespace tensorperf::features {
class FeatureCache;
}

namespace tensorperf::costmodel {

struct SampleSetOptions {
  std::string device_key;  // only this device (empty: all)
  size_t max_samples = 0;  // 0: all; else an even subsample of the records (deterministic)
  // A record of a described key measured at a clock more than 1% from its description's (another
  // host of the key) is labelled with its seconds times its clock over the description's: the time
  // it would take at the description's clock, to first order (tensorperf predict scales back).
  bool clock_normalise = true;
  // A program (device, workload, provider, config, target) that several sessions measured: only the
  // records within this many hours of its newest record are kept (0: all). One device key covers hosts
  // that run the same kernels up to 1.6x apart, memory-bound ones most (docs/costmodel.md, "Depthwise
  // convolutions: whose host measured the records"); a later pass that measures the programs the zoo
  // runs again (scripts/make_dataset.sh --host-pass) then gives the device one host's times for
  // them, instead of a mean over hosts. Repeats within a session (the noise floor's) are kept.
  double newest_session_hours = 6;
  // Where features computed before are read from and new ones kept (features/feature_cache.h);
  // null: every program is featurised.
  features::FeatureCache* feature_cache = nullptr;
  // Called now and then with (programs featurised, programs in all).
  std::function<void(size_t, size_t)> progress;
};

// Records of one device measured at a clock (measure::Record::clock_mhz) more than 1% from the
// clock of the description that gives their vector. One key covers hosts of one CPU model at
// different clocks; the vector then describes another host than the one that measured them.
struct OffClock {
  std::string described_by;  // the description's key (the device's own, or the closest device's)
  double described_mhz = 0;
  bool scaled = false;  // their samples were brought to the described clock (SampleSetOptions::clock_normalise)
  std::map<long, size_t> records;  // measured clock in MHz, rounded -> records
};

struct SampleSet {
  std::vector<Sample> samples;
  size_t skipped = 0;                      // samples not made: their workload or config could not be featurised
  size_t superseded = 0;  // records left out: their program was measured again in a later session
  std::vector<std::string> closest_device;  // device keys described by another device's vector
  std::map<std::string, OffClock> off_clock;  // by device key
};

// Errors: the store's; a device table that is empty.
Result<SampleSet> samples_from_store(db::RecordStore& store, const DeviceTable& devices, const SampleSetOptions& options);

}  // namespace tensorperf::costmodel
