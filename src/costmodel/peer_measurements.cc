#include "costmodel/peer_measurements.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "base/median.h"
#include "db/content_hash.h"

namespace tensorperf::costmodel {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// ln(a / b) of two positive device figures; 0 when either is missing.
double ln_ratio(double a, double b) { return a > 0 && b > 0 ? std::log(a / b) : 0.0; }

double column(const std::vector<float>& v, const std::string& name) {
  const size_t i = device_column(name);
  return i < v.size() ? v[i] : 0.0;
}

}  // namespace

void PeerTable::merge(uint64_t key, uint32_t cls, uint32_t device, float ln_seconds, uint32_t count) {
  Program& program = programs_[key];
  program.cls = cls;
  std::vector<Measured>& on = program.on;
  auto it = std::find_if(on.begin(), on.end(), [&](const Measured& m) { return m.device == device; });
  if (it == on.end()) {
    on.push_back({device, ln_seconds, count});
    return;
  }
  it->ln_seconds += (ln_seconds - it->ln_seconds) * static_cast<float>(count) / static_cast<float>(it->count + count);
  it->count += count;
}

const std::vector<std::string>& peer_column_names() {
  static const std::vector<std::string> names = {"peer_estimate", "peer_spread",    "peer_consensus", "peer_threads",
                                                 "peer_gflops",   "peer_bandwidth", "peers"};
  return names;
}

uint64_t PeerTable::program_key(const Sample& s) {
  std::string digest;
  db::content_hash_into({s.workload, "\n", s.provider, "\n", s.config, s.chained ? "\nchained" : "\n"}, digest);
  uint64_t key = 0;
  std::memcpy(&key, digest.data(), sizeof key);
  return key;
}

std::string PeerTable::program_class(const Sample& s) {
  return s.workload.substr(0, s.workload.find('|')) + "/" + s.provider;
}

uint32_t PeerTable::class_index(const std::string& cls) {
  const auto it = std::find(classes_.begin(), classes_.end(), cls);
  if (it != classes_.end()) return static_cast<uint32_t>(it - classes_.begin());
  classes_.push_back(cls);
  return static_cast<uint32_t>(classes_.size() - 1);
}

int PeerTable::find_device(const std::string& key) const {
  const auto it = std::find(devices_.begin(), devices_.end(), key);
  return it == devices_.end() ? -1 : static_cast<int>(it - devices_.begin());
}

uint32_t PeerTable::device_index(const std::string& key, const std::vector<float>& vector) {
  const int found = find_device(key);
  if (found >= 0) return static_cast<uint32_t>(found);
  devices_.push_back(key);
  vectors_.push_back(vector);
  return static_cast<uint32_t>(devices_.size() - 1);
}

void PeerTable::add(std::span<const Sample> samples) {
  for (const Sample& s : samples) {
    if (!(s.seconds > 0) || !std::isfinite(s.seconds)) continue;
    merge(program_key(s), class_index(program_class(s)), device_index(s.device_key, s.device),
          static_cast<float>(std::log(s.seconds)), 1);
  }
  recompute_shifts();
}

namespace {

// The median and median absolute deviation of `r` (which it reorders).
template <typename K, typename M>
void fill_shifts(std::map<K, std::vector<double>>& ratios, M& shifts, size_t min_shared) {
  shifts.clear();
  for (auto& [key, r] : ratios) {
    if (r.size() < min_shared) continue;
    typename M::mapped_type s;
    s.median = static_cast<float>(median(r));
    for (double& x : r) x = std::fabs(x - s.median);
    s.spread = static_cast<float>(median(r));
    s.shared = static_cast<uint32_t>(r.size());
    shifts[key] = s;
  }
}

}  // namespace

void PeerTable::recompute_shifts() {
  std::map<std::pair<uint32_t, uint32_t>, std::vector<double>> ratios;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::vector<double>> class_ratios;
  for (const auto& [key, program] : programs_)
    for (const Measured& a : program.on)
      for (const Measured& b : program.on)
        if (a.device != b.device) {
          ratios[{a.device, b.device}].push_back(a.ln_seconds - b.ln_seconds);
          class_ratios[{a.device, b.device, program.cls}].push_back(a.ln_seconds - b.ln_seconds);
        }
  fill_shifts(ratios, shifts_, kMinShared);
  fill_shifts(class_ratios, class_shifts_, 1);
}

bool PeerTable::shift(uint32_t d, uint32_t r, int cls, Shift& out) const {
  const auto pair = shifts_.find({d, r});
  if (pair == shifts_.end()) return false;
  out = pair->second;
  if (cls < 0) return true;
  const auto c = class_shifts_.find({d, r, static_cast<uint32_t>(cls)});
  if (c == class_shifts_.end()) return true;
  const double n = c->second.shared;
  out.median += static_cast<float>(n / (n + kClassPrior) * (c->second.median - out.median));
  if (c->second.shared >= kMinShared) out.spread = c->second.spread;
  return true;
}

double PeerTable::distance(const std::vector<float>& a, const std::vector<float>& b) const {
  double d = std::fabs(ln_ratio(column(a, "threads"), column(b, "threads"))) +
             std::fabs(ln_ratio(column(a, "peak_gflops"), column(b, "peak_gflops"))) +
             std::fabs(ln_ratio(column(a, "mem_bandwidth_gbs"), column(b, "mem_bandwidth_gbs"))) +
             0.5 * std::fabs(ln_ratio(column(a, "l2_kib"), column(b, "l2_kib"))) +
             0.25 * std::fabs(ln_ratio(column(a, "l3_mib"), column(b, "l3_mib")));
  for (const char* isa : {"isa_sse41", "isa_avx2", "isa_avx512"})
    if (column(a, isa) != column(b, isa)) d += 0.5;
  return d;
}

std::array<float, kPeerColumns> PeerTable::columns(const Sample& s, double unit_seconds) const {
  std::array<float, kPeerColumns> out;
  out.fill(kNaN);
  const auto it = programs_.find(program_key(s));
  if (it == programs_.end()) return out;
  const int self = find_device(s.device_key);
  const std::string cls_name = program_class(s);
  const auto cls_it = std::find(classes_.begin(), classes_.end(), cls_name);
  const int cls = cls_it == classes_.end() ? -1 : static_cast<int>(cls_it - classes_.begin());
  const Measured* best = nullptr;
  Shift best_shift_value;
  const Shift* best_shift = nullptr;
  double best_distance = std::numeric_limits<double>::infinity();
  double weighted = 0, weights = 0;
  size_t peers = 0;
  for (const Measured& m : it->second.on) {
    if (static_cast<int>(m.device) == self) continue;
    ++peers;
    Shift found;
    if (self >= 0 && shift(static_cast<uint32_t>(self), m.device, cls, found)) {
      const double w = 1.0 / std::pow(std::max<double>(found.spread, 0.01), 2);
      weighted += w * (m.ln_seconds + found.median);
      weights += w;
      if (!best_shift || found.spread < best_shift->spread) {
        best = &m;
        best_shift_value = found;
        best_shift = &best_shift_value;
      }
    } else if (!best_shift) {
      const double d = distance(s.device, vectors_[m.device]);
      if (d < best_distance) {
        best_distance = d;
        best = &m;
      }
    }
  }
  if (!best) return out;
  const double ln_unit = std::log(unit_seconds);
  const std::vector<float>& peer = vectors_[best->device];
  out[0] = static_cast<float>(best->ln_seconds + (best_shift ? best_shift->median : 0.0f) - ln_unit);
  if (best_shift) out[1] = best_shift->spread;
  if (weights > 0) out[2] = static_cast<float>(weighted / weights - ln_unit);
  out[3] = static_cast<float>(ln_ratio(column(s.device, "threads"), column(peer, "threads")));
  out[4] = static_cast<float>(ln_ratio(column(s.device, "peak_gflops"), column(peer, "peak_gflops")));
  out[5] = static_cast<float>(ln_ratio(column(s.device, "mem_bandwidth_gbs"), column(peer, "mem_bandwidth_gbs")));
  out[6] = static_cast<float>(peers);
  return out;
}

nlohmann::json PeerTable::to_json() const {
  nlohmann::json devices = nlohmann::json::array();
  for (size_t i = 0; i < devices_.size(); ++i) devices.push_back({{"key", devices_[i]}, {"vector", vectors_[i]}});
  nlohmann::json programs = nlohmann::json::array();
  for (const auto& [key, program] : programs_)
    for (const Measured& m : program.on)
      programs.push_back(nlohmann::json::array({key, program.cls, m.device, m.ln_seconds, m.count}));
  return {{"devices", std::move(devices)}, {"classes", classes_}, {"programs", std::move(programs)}};
}

Result<PeerTable> PeerTable::from_json(const nlohmann::json& j) {
  auto bad = [](const std::string& what) { return Status::Corruption("peer measurements: " + what); };
  if (!j.is_object() || !j.contains("devices") || !j["devices"].is_array() || !j.contains("programs") ||
      !j["programs"].is_array() || !j.contains("classes") || !j["classes"].is_array())
    return bad("no devices, classes or programs");
  PeerTable t;
  for (const nlohmann::json& c : j["classes"]) {
    if (!c.is_string()) return bad("a class is not a name");
    t.classes_.push_back(c.get<std::string>());
  }
  for (const nlohmann::json& d : j["devices"]) {
    if (!d.is_object() || !d.contains("key") || !d["key"].is_string() || !d.contains("vector") || !d["vector"].is_array())
      return bad("a device without key or vector");
    t.devices_.push_back(d["key"].get<std::string>());
    std::vector<float> v;
    for (const nlohmann::json& x : d["vector"]) {
      if (!x.is_number()) return bad("a device vector holds a non-number");
      v.push_back(x.get<float>());
    }
    t.vectors_.push_back(std::move(v));
  }
  for (const nlohmann::json& p : j["programs"]) {
    if (!p.is_array() || p.size() != 5 || !p[0].is_number_unsigned() || !p[1].is_number_unsigned() ||
        !p[2].is_number_unsigned() || !p[3].is_number() || !p[4].is_number_unsigned() || p[4].get<uint64_t>() == 0)
      return bad("a program entry is not [key, class, device, ln_seconds, count]");
    const uint32_t cls = p[1].get<uint32_t>(), d = p[2].get<uint32_t>();
    if (cls >= t.classes_.size()) return bad("a program entry names class " + std::to_string(cls));
    if (d >= t.devices_.size()) return bad("a program entry names device " + std::to_string(d));
    t.merge(p[0].get<uint64_t>(), cls, d, p[3].get<float>(), p[4].get<uint32_t>());
  }
  t.recompute_shifts();
  return t;
}

}  // namespace tensorperf::costmodel
