// Private to costmodel/: libtorch modules' parameters and buffers as JSON (name -> {shape, values})
// for the model files, and back into a module of the same architecture. Includes torch.
#pragma once

#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace tensorperf::costmodel {

nlohmann::json module_state(const torch::nn::Module& module);
// Copies every named parameter and buffer of `state` into `module`. Corruption when a name is
// missing or a shape differs.
Status load_module_state(torch::nn::Module& module, const nlohmann::json& state);

// Standardisation of feature columns (columns that do not vary keep a scale of 1).
struct Standardizer {
  std::vector<float> mean, scale;
  void fit(const torch::Tensor& x);  // [N, F]
  torch::Tensor apply(const torch::Tensor& x) const;
  nlohmann::json to_json() const;
  static Result<Standardizer> from_json(const nlohmann::json& j, size_t width);
};

}  // namespace tensorperf::costmodel
