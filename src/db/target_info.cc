#include "db/target_info.h"

#include <algorithm>
#include <array>
#include <utility>

namespace tensorperf::db {
namespace {

struct KindKeys {
  std::string_view kind;
  std::array<std::string_view, 2> keys;  // empty entries unused
};

// TVM's target kinds and their default keys (src/target/target_kind.cc).
constexpr KindKeys kKinds[] = {
    {"llvm", {"cpu", ""}},       {"c", {"cpu", ""}},           {"cuda", {"cuda", "gpu"}},
    {"nvptx", {"cuda", "gpu"}},  {"rocm", {"rocm", "gpu"}},    {"opencl", {"opencl", "gpu"}},
    {"metal", {"metal", "gpu"}}, {"vulkan", {"vulkan", "gpu"}}, {"webgpu", {"webgpu", "gpu"}},
    {"sdaccel", {"sdaccel", "hls"}}, {"aocl", {"aocl", "hls"}}, {"aocl_sw_emu", {"aocl", "hls"}},
    {"hexagon", {"hexagon", ""}}, {"stackvm", {"", ""}},        {"ext_dev", {"", ""}},
    {"hybrid", {"", ""}},
};

std::vector<std::string_view> split_words(std::string_view s) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ') ++j;
    if (j > i) words.push_back(s.substr(i, j - i));
    i = j;
  }
  return words;
}

void add_unique(std::vector<std::string>& keys, std::string_view k) {
  if (k.empty()) return;
  if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.emplace_back(k);
}

const KindKeys* find_kind(std::string_view kind) {
  for (const auto& k : kKinds)
    if (k.kind == kind) return &k;
  return nullptr;
}

}  // namespace

bool looks_like_tvm_target(std::string_view s) {
  auto words = split_words(s);
  return !words.empty() && find_kind(words[0]) != nullptr;
}

DeviceDescription describe_tvm_target(std::string_view target) {
  DeviceDescription d;
  d.key = std::string(target);
  d.target = std::string(target);
  auto words = split_words(target);
  if (words.empty()) return d;
  std::vector<std::string> user_keys;
  bool has_user_keys = false;
  std::string device;
  for (size_t i = 1; i < words.size(); ++i) {
    std::string_view w = words[i];
    if (w.size() < 2 || w[0] != '-') continue;
    w.remove_prefix(w[1] == '-' ? 2 : 1);
    size_t eq = w.find('=');
    std::string_view name = w.substr(0, eq);
    std::string_view value = eq == std::string_view::npos ? std::string_view() : w.substr(eq + 1);
    if (name == "keys") {
      has_user_keys = true;
      size_t start = 0;
      while (start <= value.size()) {
        size_t comma = value.find(',', start);
        if (comma == std::string_view::npos) comma = value.size();
        add_unique(user_keys, value.substr(start, comma - start));
        start = comma + 1;
      }
    } else if (name == "device") {
      device = std::string(value);
    } else if (name == "model") {
      d.model = std::string(value);
    } else if (name == "mcpu") {
      d.mcpu = std::string(value);
    }
  }
  d.keys = std::move(user_keys);
  add_unique(d.keys, device);
  if (!has_user_keys) {
    if (const KindKeys* kind = find_kind(words[0]))
      for (std::string_view k : kind->keys) add_unique(d.keys, k);
  }
  if (d.mcpu.empty()) d.mcpu = device;
  return d;
}

DeviceDescription describe_native_device(std::string_view device_key, std::string_view target) {
  DeviceDescription d;
  d.key = std::string(device_key);
  d.target = std::string(target);
  add_unique(d.keys, target);
  // Halide target strings are arch-bits-os-features...: "x86-64" is the architecture.
  size_t first = target.find('-');
  if (first != std::string_view::npos) {
    size_t second = target.find('-', first + 1);
    add_unique(d.keys, target.substr(0, second));
  }
  return d;
}

}  // namespace tensorperf::db
