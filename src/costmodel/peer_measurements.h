// Peer measurements: what the training set measured of the same program on other devices, as
// features of a sample (the `xgb-peers` cost model). A central database holds most programs measured
// on several devices (in data/measurements/, 98.8% of a device's programs were also measured on
// another one). On a device with few records (a new one, fine-tuned with a share of its samples),
// the program's latency on a similar device, moved by how the two devices differ on the programs
// both measured, says what the program's features alone do not: how this config of this shape runs
// on real hardware.
//
// A program is its workload, provider, config and chained flag; not its target, which follows the
// device. For a sample on device D, the peers are the table's measurements of its program on
// devices other than D. The shift between two devices is the median of ln(seconds on D / seconds on
// R) over the programs both measured (at least kMinShared); its spread is the median absolute
// deviation of that log ratio. The same per program class (operator and provider) moves a
// program's shift towards its class's as far as the class has programs in common. A peer whose
// shift to D is known is corrected by it.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "costmodel/sample.h"

namespace tensorperf::costmodel {

inline constexpr size_t kPeerColumns = 7;
// The names of the columns peer_columns() gives, in order.
const std::vector<std::string>& peer_column_names();

class PeerTable {
 public:
  // Fewest programs two devices must share before their shift is used.
  static constexpr size_t kMinShared = 12;

  // Adds measured samples (seconds > 0; others are ignored) and recomputes the shifts.
  void add(std::span<const Sample> samples);

  // The peer columns of `s`, whose target unit is `unit_seconds` (the model's: the roofline
  // estimate, or 1); every column NaN when the table has no other device's measurement of it:
  //   peer_estimate   ln(the best peer's seconds, moved by its shift to s's device, / unit_seconds):
  //                   the best peer is the one whose shift is known with the smallest spread, else
  //                   the one whose device is closest to s's (threads, peak, bandwidth, caches, ISA)
  //   peer_spread     that shift's spread (NaN when unknown)
  //   peer_consensus  the same estimate from every peer with a known shift, weighted by the inverse
  //                   square of its spread (NaN when none is known)
  //   peer_threads    ln(s's threads / the best peer's)
  //   peer_gflops     ln(s's peak GFLOP/s / the best peer's)
  //   peer_bandwidth  ln(s's memory bandwidth / the best peer's)
  //   peers           how many other devices measured the program
  std::array<float, kPeerColumns> columns(const Sample& s, double unit_seconds) const;

  size_t programs() const { return programs_.size(); }
  size_t devices() const { return devices_.size(); }
  bool empty() const { return programs_.empty(); }

  // {"devices": [{"key", "vector"}], "classes": [names], "programs": [[key, class, device, mean
  // ln_seconds, count], ...]}; the shifts are recomputed on load. Corruption on a malformed payload.
  nlohmann::json to_json() const;
  static Result<PeerTable> from_json(const nlohmann::json& j);

  // What identifies a sample's program across devices (64 bits of SHA-256 over its parts).
  static uint64_t program_key(const Sample& s);
  // The class whose shifts a program takes: its operator and provider, e.g. "relu/halide". Devices
  // differ by operator: a memory-bound kernel gains less from a second thread than a convolution.
  static std::string program_class(const Sample& s);
  static constexpr double kClassPrior = 8;

 private:
  struct Measured {
    uint32_t device;
    float ln_seconds;  // the mean of ln(seconds) over the samples of the program on the device
    uint32_t count;
  };
  struct Shift {
    float median = 0;  // ln(seconds on the first device / seconds on the second)
    float spread = 0;
    uint32_t shared = 0;
  };
  struct Program {
    uint32_t cls = 0;  // index in classes_
    std::vector<Measured> on;
  };
  uint32_t device_index(const std::string& key, const std::vector<float>& vector);
  // Folds `count` measurements with mean ln(seconds) `ln_seconds` into the program's entry.
  void merge(uint64_t key, uint32_t cls, uint32_t device, float ln_seconds, uint32_t count);
  uint32_t class_index(const std::string& cls);
  // The shift from device r to device d for a program of class `cls`: the pair's, moved towards the
  // class's own by n / (n + kClassPrior) where n is how many programs of the class both measured;
  // the class's spread once n >= kMinShared. False when the pair has no shift.
  bool shift(uint32_t d, uint32_t r, int cls, Shift& out) const;
  int find_device(const std::string& key) const;
  void recompute_shifts();
  double distance(const std::vector<float>& a, const std::vector<float>& b) const;

  std::vector<std::string> devices_;
  std::vector<std::vector<float>> vectors_;  // measure::device_feature_names() columns, per device
  std::vector<std::string> classes_;  // program classes: operator and provider ("conv2d/halide")
  std::unordered_map<uint64_t, Program> programs_;
  std::map<std::pair<uint32_t, uint32_t>, Shift> shifts_;  // (d, r) -> shift from r to d
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Shift> class_shifts_;  // (d, r, class)
};

}  // namespace tensorperf::costmodel
