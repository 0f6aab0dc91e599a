// What the store knows about a device beyond its key: the keys and model that TVM's
// apply_history_best indexes by, and the -mcpu/-device option. A TVM record's device is its target
// string ("llvm -device=arm_cpu -model=rk3399 -mattr=+neon"); a tensorperf record's device is its
// device key with its compile target (a Halide target string such as "x86-64-linux-avx2-fma").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tensorperf::db {

struct DeviceDescription {
  std::string key;                // device key or TVM target string, as stored
  std::string target;             // compile target string
  std::vector<std::string> keys;  // target keys, most specific first ("arm_cpu", "cpu")
  std::string model;              // TVM -model value; empty when unknown
  std::string mcpu;               // TVM -mcpu, or -device when there is no -mcpu; may be empty
};

// Parses a TVM target string as TVM's Target does for keys and model: keys are the -keys list (if
// given), then the -device value, then the target kind's default keys when no -keys was given,
// without duplicates. Options it does not know are ignored.
DeviceDescription describe_tvm_target(std::string_view target);

// A tensorperf device: keys are the Halide target string and its architecture ("x86-64"), so that
// devices with the same ISA level come first in a fallback, then devices of the same architecture.
DeviceDescription describe_native_device(std::string_view device_key, std::string_view target);

// Whether `s` starts with a TVM target kind name (llvm, cuda, opencl, ...).
bool looks_like_tvm_target(std::string_view s);

}  // namespace tensorperf::db
