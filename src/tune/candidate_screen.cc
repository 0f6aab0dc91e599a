// A trained cost model as the tuning loop's screen: each candidate becomes a costmodel::Sample (its
// program's features and the device's vector) and the model predicts them all at once.
#include <limits>

#include "costmodel/device_table.h"
#include "costmodel/sample.h"
#include "tune/tuning_loop.h"

namespace tensorperf::tune {
namespace {

class CostModelScreen final : public CandidateScreen {
 public:
  CostModelScreen(std::shared_ptr<const costmodel::CostModel> model, costmodel::DeviceTable trained_on)
      : model_(std::move(model)), trained_on_(std::move(trained_on)) {}

  Result<std::vector<double>> predict(const ir::Workload& w, const measure::Device& device,
                                      std::span<const kernels::Config> configs) const override {
    const measure::Device* trained = trained_on_.find_for(device);
    const std::vector<double> device_features = (trained ? *trained : device).features();
    std::vector<costmodel::Sample> samples;
    std::vector<size_t> described;
    std::vector<Result<costmodel::Sample>> made =
        costmodel::make_samples(w, configs, device.target, device_features, device.key());
    for (size_t i = 0; i < made.size(); ++i) {
      if (!made[i].ok()) continue;
      samples.push_back(std::move(*made[i]));
      described.push_back(i);
    }
    std::vector<double> out(configs.size(), std::numeric_limits<double>::infinity());
    if (samples.empty()) return out;
    TP_ASSIGN_OR_RETURN(std::vector<double> predicted, model_->predict(samples));
    for (size_t i = 0; i < described.size(); ++i) out[described[i]] = predicted[i];
    return out;
  }

 private:
  std::shared_ptr<const costmodel::CostModel> model_;
  costmodel::DeviceTable trained_on_;
};

}  // namespace

std::shared_ptr<const CandidateScreen> cost_model_screen(std::shared_ptr<const costmodel::CostModel> model,
                                                         costmodel::DeviceTable trained_on) {
  return std::make_shared<CostModelScreen>(std::move(model), std::move(trained_on));
}

}  // namespace tensorperf::tune
