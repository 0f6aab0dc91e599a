// The XGBoost cost model's entry points, for the registry (cost_model_registry.cc).
#pragma once

#include "costmodel/cost_model.h"

namespace tensorperf::costmodel {

std::unique_ptr<CostModel> make_xgb_cost_model(const CostModelOptions& options);
Result<std::unique_ptr<CostModel>> load_xgb_cost_model(const nlohmann::json& payload, const CostModelOptions& options);

}  // namespace tensorperf::costmodel
