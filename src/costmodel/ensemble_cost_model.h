// The ensemble cost model: xgb and mlp trained on the same samples, predicting the geometric mean of
// their two latencies. The trees and the network err in different places (the trees on BERT's
// products less, the network on ResNet-18's and VGG-16's convolutions less), so their mean in log space
// is closer than either on networks neither has seen.
#pragma once

#include "costmodel/cost_model.h"

namespace tensorperf::costmodel {

std::unique_ptr<CostModel> make_ensemble_cost_model(const CostModelOptions& options);
Result<std::unique_ptr<CostModel>> load_ensemble_cost_model(const nlohmann::json& payload,
                                                            const CostModelOptions& options);

}  // namespace tensorperf::costmodel
