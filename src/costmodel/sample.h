// One program as a cost model sees it: its features (features/program_features.h), the device's
// vector (measure::Device::features) and, for training and evaluation, its measured latency.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "features/program_features.h"

namespace tensorperf::costmodel {

struct Sample {
  std::vector<float> program;                      // features::pooled_feature_names() columns
  std::vector<std::vector<float>> leaves;          // features::leaf_feature_names() rows (loop-nest samples)
  std::vector<features::LeafPosition> positions;  // one per leaf
  std::vector<float> device;                       // measure::device_feature_names() columns
  double seconds = 0;                              // the measured median cost; 0 when not measured
  std::string workload, device_key, provider;      // what splits and per-workload metrics group by
  std::string config;                              // the config's knobs as JSON (eval's predictions name it)
  bool chained = false;                            // the program as a graph chains it (ProgramRef::chained)
};

// A sample of (workload, config) on a device described by `device_features`, unmeasured; with
// `chained`, of the program as a graph chains it (features::ProgramRef::chained). Errors: what
// features::program_features reports.
Result<Sample> make_sample(const ir::Workload& w, const kernels::Config& config, const std::string& target,
                           const std::vector<double>& device_features, const std::string& device_key,
                           bool chained = false);
// The samples of many configs of `w` at once (their Halide programs lowered together: cheaper than
// one make_sample each). One result per config, in order.
std::vector<Result<Sample>> make_samples(const ir::Workload& w, std::span<const kernels::Config> configs,
                                         const std::string& target, const std::vector<double>& device_features,
                                         const std::string& device_key, bool chained = false);

// The index of column `name` in a sample's program vector (features::pooled_feature_names()) or
// device vector (measure::device_feature_names()); that vector's width when it has no such column.
size_t program_column(const std::string& name);
size_t device_column(const std::string& name);

// What every model's fit() requires of its training set: samples, each with a measured latency
// (finite, > 0). InvalidArgument naming the first sample that has none.
Status check_training_set(std::span<const Sample> train);

}  // namespace tensorperf::costmodel
