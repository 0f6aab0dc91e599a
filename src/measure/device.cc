#include "measure/device.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "base/cache_dir.h"
#include "measure/device_peaks.h"

namespace tensorperf::measure {
namespace {

namespace fs = std::filesystem;

// ISA levels, lowest first: the features each needs, its Halide target, its part of the device key.
struct IsaLevel {
  const char* name;
  std::vector<std::string> needs;
  const char* target;
  const char* key;
  int lanes;  // FP32 lanes of its widest vector
};
const std::vector<IsaLevel>& isa_levels() {
  static const std::vector<IsaLevel> levels = {
      {"sse41", {"sse41"}, "x86-64-linux-sse41", "sse41", 4},
      {"avx2", {"sse41", "avx", "avx2", "fma", "f16c"}, "x86-64-linux-avx-avx2-f16c-fma-sse41", "avx2-fma", 8},
      {"avx512",
       {"sse41", "avx", "avx2", "fma", "f16c", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"},
       "x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41",
       "avx512",
       16},
  };
  return levels;
}

const IsaLevel* find_level(const std::string& name) {
  for (const auto& l : isa_levels())
    if (name == l.name) return &l;
  return nullptr;
}

bool has_all(const std::vector<std::string>& have, const std::vector<std::string>& need) {
  return std::all_of(need.begin(), need.end(),
                     [&](const std::string& f) { return std::find(have.begin(), have.end(), f) != have.end(); });
}

// /proc/cpuinfo flag -> our (Halide's) feature name.
const std::vector<std::pair<std::string, std::string>>& flag_names() {
  static const std::vector<std::pair<std::string, std::string>> names = {
      {"sse4_1", "sse41"},      {"avx", "avx"},           {"avx2", "avx2"},         {"fma", "fma"},
      {"f16c", "f16c"},         {"avx512f", "avx512f"},   {"avx512cd", "avx512cd"}, {"avx512bw", "avx512bw"},
      {"avx512dq", "avx512dq"}, {"avx512vl", "avx512vl"},
  };
  return names;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

Status read_cpuinfo(Device& d) {
  std::ifstream in("/proc/cpuinfo");
  if (!in) return Status::IoError("cannot read /proc/cpuinfo: the device fingerprint needs it");
  std::string line, flags, family, model;
  while (std::getline(in, line)) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) {
      if (!d.cpu_model.empty() && !flags.empty()) break;  // the first processor is enough
      continue;
    }
    std::string name = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (name == "model name" && d.cpu_model.empty()) d.cpu_model = value;
    if (name == "flags" && flags.empty()) flags = value;
    if (name == "cpu family" && family.empty()) family = value;
    if (name == "model" && model.empty()) model = value;
    if (name == "cpu MHz" && d.clock_mhz <= 0) d.clock_mhz = std::atof(value.c_str());
  }
  // The rated maximum where cpufreq shows it (the cpuinfo figure is the current clock).
  std::ifstream max_freq("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  if (double khz = 0; max_freq >> khz && khz > 0) d.clock_mhz = khz / 1000.0;
  if (d.cpu_model.empty()) d.cpu_model = "unknown cpu";
  if (!family.empty() && !model.empty()) d.cpu_signature = "f" + family + "m" + model;
  std::set<std::string> have;
  std::istringstream fs_in(flags);
  for (std::string f; fs_in >> f;) have.insert(f);
  for (const auto& [flag, name] : flag_names())
    if (have.count(flag)) d.isa_features.push_back(name);
  return Status::Ok();
}

// "48K" / "1024K" / "32M" -> bytes.
int64_t parse_size(std::string s) {
  s = trim(s);
  if (s.empty()) return 0;
  int64_t mult = 1;
  char last = static_cast<char>(std::toupper(static_cast<unsigned char>(s.back())));
  if (last == 'K') mult = 1024;
  if (last == 'M') mult = 1024 * 1024;
  if (last == 'G') mult = int64_t{1024} * 1024 * 1024;
  return std::atoll(s.c_str()) * mult;
}

void read_caches(Device& d) {
  const fs::path dir = "/sys/devices/system/cpu/cpu0/cache";
  std::error_code ec;
  if (fs::is_directory(dir, ec)) {
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      auto read = [&](const char* f) {
        std::ifstream in(entry.path() / f);
        std::string s;
        std::getline(in, s);
        return s;
      };
      std::string level = read("level"), type = read("type");
      int64_t size = parse_size(read("size"));
      if (level == "1" && type == "Data") d.l1d_bytes = size;
      if (level == "2") d.l2_bytes = size;
      if (level == "3") d.l3_bytes = size;
    }
  }
  // Sandboxes often hide sysfs; glibc reads the same numbers from cpuid.
  if (d.l1d_bytes <= 0) d.l1d_bytes = std::max<long>(0, sysconf(_SC_LEVEL1_DCACHE_SIZE));
  if (d.l2_bytes <= 0) d.l2_bytes = std::max<long>(0, sysconf(_SC_LEVEL2_CACHE_SIZE));
  if (d.l3_bytes <= 0) d.l3_bytes = std::max<long>(0, sysconf(_SC_LEVEL3_CACHE_SIZE));
}

// "AMD EPYC 7B13 64-Core Processor" -> "amd-epyc-7b13"; "Intel(R) Xeon(R) CPU @ 2.20GHz" -> "intel-xeon".
std::string model_slug(const std::string& model) {
  std::string lower;
  for (char c : model) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* noise : {"(r)", "(tm)"}) {
    for (size_t p; (p = lower.find(noise)) != std::string::npos;) lower.erase(p, std::string(noise).size());
  }
  if (size_t at = lower.find('@'); at != std::string::npos) lower.erase(at);
  std::vector<std::string> words;
  std::string word;
  auto flush = [&] {
    bool core_count = word.size() > 5 && word.compare(word.size() - 5, 5, "-core") == 0;
    if (!word.empty() && word != "processor" && word != "cpu" && !core_count) words.push_back(word);
    word.clear();
  };
  for (char c : lower) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-') {
      word += c;
    } else {
      flush();
    }
  }
  flush();
  std::string slug;
  for (const auto& w : words) slug += (slug.empty() ? "" : "-") + w;
  return slug.empty() ? "unknown" : slug;
}

fs::path cache_dir(const DeviceOptions& o) {
  return o.cache_dir.empty() ? user_cache_dir() : fs::path(o.cache_dir);
}

bool load_cached_peaks(const fs::path& file, Device& d) {
  std::ifstream in(file);
  if (!in) return false;
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  auto cached = device_from_json(j);
  if (!cached.ok() || cached->key() != d.key() || cached->peak_gflops <= 0 || cached->mem_bandwidth_gbs <= 0)
    return false;
  d.peak_gflops = cached->peak_gflops;
  d.mem_bandwidth_gbs = cached->mem_bandwidth_gbs;
  return true;
}

}  // namespace

std::string Device::key() const {
  const IsaLevel* level = find_level(isa);
  std::string cpu = model_slug(cpu_model);
  // A masked model name ("AMD EPYC", "Intel Xeon") does not tell CPU generations apart; the signature does.
  if (!cpu_signature.empty() && cpu.find_first_of("0123456789") == std::string::npos) cpu += "-" + cpu_signature;
  return arch + "-" + cpu + "-" + (level ? level->key : isa) + "-t" + std::to_string(threads);
}

bool same_cpu_under_older_key(const Device& older, const Device& host) {
  if (!older.cpu_signature.empty() || host.cpu_signature.empty()) return false;
  std::vector<std::string> a = older.isa_features, b = host.isa_features;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return older.arch == host.arch && older.cpu_model == host.cpu_model && older.isa == host.isa && a == b &&
         older.cores == host.cores && older.threads == host.threads && older.l1d_bytes == host.l1d_bytes &&
         older.l2_bytes == host.l2_bytes && older.l3_bytes == host.l3_bytes;
}

const std::vector<std::string>& device_feature_names() {
  static const std::vector<std::string> names = {
      "cores",      "threads",     "l1d_kib",           "l2_kib", "l3_mib", "vector_lanes", "isa_sse41", "isa_avx2",
      "isa_avx512", "peak_gflops", "mem_bandwidth_gbs", "clock_ghz", "cpu_has_avx512", "cpu_has_avx2", "cpu_has_fma",
  };
  return names;
}

std::vector<double> Device::features() const {
  const IsaLevel* level = find_level(isa);
  auto has = [&](const char* f) { return std::find(isa_features.begin(), isa_features.end(), f) != isa_features.end(); };
  return {static_cast<double>(cores),
          static_cast<double>(threads),
          static_cast<double>(l1d_bytes) / 1024.0,
          static_cast<double>(l2_bytes) / 1024.0,
          static_cast<double>(l3_bytes) / (1024.0 * 1024.0),
          static_cast<double>(level ? level->lanes : 0),
          isa == "sse41" ? 1.0 : 0.0,
          isa == "avx2" ? 1.0 : 0.0,
          isa == "avx512" ? 1.0 : 0.0,
          peak_gflops,
          mem_bandwidth_gbs,
          clock_mhz / 1000.0,
          has("avx512f") ? 1.0 : 0.0,
          has("avx2") ? 1.0 : 0.0,
          has("fma") ? 1.0 : 0.0};
}

nlohmann::json device_to_json(const Device& d) {
  return {{"key", d.key()},
          {"arch", d.arch},
          {"cpu_model", d.cpu_model},
          {"cpu_signature", d.cpu_signature},
          {"isa_features", d.isa_features},
          {"isa", d.isa},
          {"target", d.target},
          {"cores", d.cores},
          {"threads", d.threads},
          {"l1d_bytes", d.l1d_bytes},
          {"l2_bytes", d.l2_bytes},
          {"l3_bytes", d.l3_bytes},
          {"peak_gflops", d.peak_gflops},
          {"mem_bandwidth_gbs", d.mem_bandwidth_gbs},
          {"clock_mhz", d.clock_mhz}};
}

Result<Device> device_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return Status::Corruption("device: not a JSON object");
  try {
    Device d;
    d.arch = j.at("arch").get<std::string>();
    d.cpu_model = j.at("cpu_model").get<std::string>();
    d.cpu_signature = j.value("cpu_signature", "");  // absent before it was kept: the key stays as written
    d.isa_features = j.at("isa_features").get<std::vector<std::string>>();
    d.isa = j.at("isa").get<std::string>();
    d.target = j.at("target").get<std::string>();
    d.cores = j.at("cores").get<int>();
    d.threads = j.at("threads").get<int>();
    d.l1d_bytes = j.at("l1d_bytes").get<int64_t>();
    d.l2_bytes = j.at("l2_bytes").get<int64_t>();
    d.l3_bytes = j.at("l3_bytes").get<int64_t>();
    d.peak_gflops = j.at("peak_gflops").get<double>();
    d.mem_bandwidth_gbs = j.at("mem_bandwidth_gbs").get<double>();
    d.clock_mhz = j.value("clock_mhz", 0.0);  // absent in descriptions written before it was kept
    return d;
  } catch (const nlohmann::json::exception& e) {
    return Status::Corruption(std::string("device: ") + e.what());
  }
}

double load_average() {
  std::ifstream in("/proc/loadavg");
  double one_minute = -1;
  if (!(in >> one_minute) || one_minute < 0) return -1;
  return one_minute;
}

std::vector<int> pinned_cpus(int threads) {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE && static_cast<int>(cpus.size()) < threads; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  if (cpus.empty()) cpus.push_back(0);
  return cpus;
}

Status pin_current_thread(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  // pid 0 is the calling thread; threads it starts afterwards inherit the mask.
  if (sched_setaffinity(0, sizeof(set), &set) != 0)
    return Status::IoError("sched_setaffinity refused to pin to " + std::to_string(cpus.size()) + " CPU(s)");
  return Status::Ok();
}

Result<Device> detect_device(const DeviceOptions& options) {
  Device d;
  TP_RETURN_IF_ERROR(read_cpuinfo(d));
  cpu_set_t set;
  CPU_ZERO(&set);
  d.cores =
      sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  if (options.threads < 1 || options.threads > d.cores)
    return Status::InvalidArgument("--threads " + std::to_string(options.threads) + ": this process may use 1 to " +
                                   std::to_string(d.cores) + " CPUs");
  d.threads = options.threads;
  read_caches(d);

  const IsaLevel* level = nullptr;
  if (options.isa == "native") {
    for (const auto& l : isa_levels())
      if (has_all(d.isa_features, l.needs)) level = &l;
    if (!level) return Status::Unsupported("this CPU lacks SSE4.1, the lowest ISA level tensorperf compiles for");
  } else {
    level = find_level(options.isa);
    if (!level)
      return Status::InvalidArgument("unknown ISA level \"" + options.isa + "\": use native, sse41, avx2 or avx512");
    if (!has_all(d.isa_features, level->needs))
      return Status::InvalidArgument("this CPU cannot run ISA level " + options.isa +
                                     " (it has: " + nlohmann::json(d.isa_features).dump() + ")");
  }
  d.isa = level->name;
  d.target = level->target;

  fs::path file = cache_dir(options) / ("device-" + d.key() + ".json");
  if (!options.remeasure && load_cached_peaks(file, d)) return d;
  d.peak_gflops = measure_peak_gflops(d.isa, d.threads);
  d.mem_bandwidth_gbs = measure_triad_bandwidth(d.threads);
  // The cache is an optimisation: failing to write it only means measuring again next time.
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  std::ofstream out(file);
  if (out) out << device_to_json(d).dump(2) << "\n";
  return d;
}

}  // namespace tensorperf::measure
