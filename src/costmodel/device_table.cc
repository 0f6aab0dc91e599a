#include "costmodel/device_table.h"

#include <filesystem>

#include "base/read_file.h"

namespace tensorperf::costmodel {

namespace fs = std::filesystem;

DeviceKeyParts split_device_key(const std::string& key) {
  DeviceKeyParts p;
  std::string rest = key;
  if (size_t t = rest.rfind("-t"); t != std::string::npos && t + 2 < rest.size() &&
                                    rest.find_first_not_of("0123456789", t + 2) == std::string::npos) {
    p.threads = std::stoi(rest.substr(t + 2));
    rest = rest.substr(0, t);
  }
  for (const char* isa : {"-avx512", "-avx2-fma", "-sse41"})
    if (size_t at = rest.rfind(isa); at != std::string::npos && at + std::string(isa).size() == rest.size()) {
      p.isa = isa + 1;
      rest = rest.substr(0, at);
      break;
    }
  if (size_t dash = rest.find('-'); dash != std::string::npos) {
    p.arch = rest.substr(0, dash);
    p.cpu = rest.substr(dash + 1);
  } else {
    p.arch = rest;
  }
  return p;
}

Status DeviceTable::add_directory(const std::string& dir) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return Status::NotFound("cannot read the device directory " + dir + ": " + ec.message());
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("device-", 0) != 0 || entry.path().extension() != ".json") continue;
    TP_ASSIGN_OR_RETURN(std::string text, read_file(entry.path().string()));
    nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    auto d = measure::device_from_json(j);
    if (!d.ok()) return Status::Corruption(entry.path().string() + ": " + d.status().message());
    add(*d);
  }
  return Status::Ok();
}

Result<DeviceVector> DeviceTable::vector_for(const std::string& device_key) const {
  TP_ASSIGN_OR_RETURN(measure::Device best, closest(device_key));
  if (best.key() == device_key) best = *find_for(best);  // its older key's description, where there is one
  DeviceVector v;
  for (double f : best.features()) v.features.push_back(static_cast<float>(f));
  v.described_by = best.key();
  v.exact = v.described_by == device_key;
  return v;
}

const measure::Device* DeviceTable::find(const std::string& device_key) const {
  auto it = devices_.find(device_key);
  return it == devices_.end() ? nullptr : &it->second;
}

const measure::Device* DeviceTable::find_under_older_key(const measure::Device& host) const {
  for (const auto& [key, d] : devices_)
    if (measure::same_cpu_under_older_key(d, host)) return &d;
  return nullptr;
}

const measure::Device* DeviceTable::find_for(const measure::Device& device) const {
  if (const measure::Device* older = find_under_older_key(device)) return older;
  return find(device.key());
}

std::string DeviceTable::device_of(const std::string& device_key) const {
  const measure::Device* d = find(device_key);
  return d == nullptr ? device_key : find_for(*d)->key();  // find_for: the older key's, else d itself
}

Result<measure::Device> DeviceTable::closest(const std::string& device_key) const {
  if (devices_.empty()) return Status::NotFound("no device descriptions to describe " + device_key + " with");
  const measure::Device* best = nullptr;
  int best_score = -1;
  const DeviceKeyParts want = split_device_key(device_key);
  for (const auto& [key, d] : devices_) {
    if (key == device_key) {
      best = &d;
      break;
    }
    const DeviceKeyParts have = split_device_key(key);
    const int score = (have.isa == want.isa ? 8 : 0) + (have.cpu == want.cpu ? 4 : 0) +
                      (have.arch == want.arch ? 2 : 0) + (have.threads == want.threads ? 1 : 0);
    if (score > best_score) {
      best_score = score;
      best = &d;
    }
  }
  return *best;
}

}  // namespace tensorperf::costmodel
