#include "costmodel/fine_tune_validation.h"

#include <vector>

namespace tensorperf::costmodel {

Result<bool> fine_tuning_pays(const CostModel& pretrained, std::span<const Sample> more, const FineTuneStep& adapt,
                              const CostModelOptions& options) {
  if (more.size() < kMinFineTuneSamples) return false;
  TP_ASSIGN_OR_RETURN(const std::vector<double> before, pretrained.predict(more));
  // Serialised once: each fold's copy is loaded from it (a large booster or network is saved once,
  // not once per fold).
  TP_ASSIGN_OR_RETURN(const nlohmann::json payload, pretrained.payload());
  double error_before = 0, error_after = 0;
  for (size_t f = 0; f < kFineTuneFolds; ++f) {
    std::vector<Sample> train, held;
    std::vector<size_t> held_rows;
    for (size_t i = 0; i < more.size(); ++i)
      if (fine_tune_fold(i) == f) {
        held.push_back(more[i]);
        held_rows.push_back(i);
      } else {
        train.push_back(more[i]);
      }
    TP_ASSIGN_OR_RETURN(std::unique_ptr<CostModel> copy, load_cost_model_payload(pretrained.kind(), payload, options));
    TP_RETURN_IF_ERROR(adapt(*copy, train));
    TP_ASSIGN_OR_RETURN(const std::vector<double> after, copy->predict(held));
    for (size_t k = 0; k < held.size(); ++k) {
      error_after += percentage_error(after[k], held[k].seconds);
      error_before += percentage_error(before[held_rows[k]], held[k].seconds);
    }
  }
  return error_after < error_before * (1 - 1e-9);
}

}  // namespace tensorperf::costmodel
