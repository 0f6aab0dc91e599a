// Device vectors for records by device key: the descriptions measure::Device writes (its JSON, as
// make_dataset.sh ships them beside the records, and as `tensorperf profile` caches them). A key
// without a description gets the closest described device's vector, flagged: the same ISA level and
// CPU first, then the same ISA level, then the same CPU, then any. One CPU has one vector: a key whose
// CPU the table also describes under an older key (before keys carried the CPU signature) gets that
// older description's vector, so records of both keys train one device and `predict` uses it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "measure/device.h"

namespace tensorperf::costmodel {

struct DeviceVector {
  std::vector<float> features;  // measure::device_feature_names() columns
  std::string described_by;     // the key whose description was used
  bool exact = false;           // described_by is the key asked for
};

class DeviceTable {
 public:
  void add(const measure::Device& d) { devices_[d.key()] = d; }
  // Adds every device-*.json of `dir`. Errors: an unreadable directory; a file that is not a device
  // description (Corruption, naming it).
  Status add_directory(const std::string& dir);
  size_t size() const { return devices_.size(); }
  // The description of exactly `device_key`, or null.
  const measure::Device* find(const std::string& device_key) const;
  // The description of `host`'s CPU under an older key (measure::same_cpu_under_older_key), or null.
  const measure::Device* find_under_older_key(const measure::Device& host) const;
  // The description that stands for `device`'s CPU: its older key's where the table holds one, else
  // its own key's, else null.
  const measure::Device* find_for(const measure::Device& device) const;
  // The key of the device whose measurements `device_key`'s records are: its older key where the table
  // describes its CPU under one (the same CPU, ISA level and threads, measured again under a newer
  // key), else `device_key` itself.
  std::string device_of(const std::string& device_key) const;
  const std::map<std::string, measure::Device>& devices() const { return devices_; }
  // NotFound when the table is empty. A described key whose CPU is described under an older key too
  // gets the older description's vector (described_by names it, exact is false).
  Result<DeviceVector> vector_for(const std::string& device_key) const;
  // The description of `device_key`, or of the closest described device (NotFound when empty).
  Result<measure::Device> closest(const std::string& device_key) const;

 private:
  std::map<std::string, measure::Device> devices_;
};

// The parts of a tensorperf device key "x86_64-amd-epyc-avx512-t2": arch, CPU slug, ISA part,
// threads (empty parts where the key does not have them).
struct DeviceKeyParts {
  std::string arch, cpu, isa;
  int threads = 0;
};
DeviceKeyParts split_device_key(const std::string& key);

}  // namespace tensorperf::costmodel
