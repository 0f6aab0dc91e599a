// The libtorch cost models' entry points, for the registry (cost_model_registry.cc). libtorch's
// headers stay in their .cc files.
#pragma once

#include "costmodel/cost_model.h"

namespace tensorperf::costmodel {

std::unique_ptr<CostModel> make_mlp_cost_model(const CostModelOptions& options);
Result<std::unique_ptr<CostModel>> load_mlp_cost_model(const nlohmann::json& payload, const CostModelOptions& options);
std::unique_ptr<CostModel> make_transformer_cost_model(const CostModelOptions& options);
Result<std::unique_ptr<CostModel>> load_transformer_cost_model(const nlohmann::json& payload,
                                                               const CostModelOptions& options);

}  // namespace tensorperf::costmodel
