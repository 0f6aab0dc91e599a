#include "costmodel/ensemble_cost_model.h"

#include <cmath>

namespace tensorperf::costmodel {
namespace {

// The members, by their registry names, in this order in the payload: {"members": [{"kind", "payload"}, ...]}.
constexpr const char* kMembers[] = {"xgb", "mlp"};

class EnsembleCostModel final : public CostModel {
 public:
  explicit EnsembleCostModel(std::vector<std::unique_ptr<CostModel>> members) : members_(std::move(members)) {}

  std::string kind() const override { return "ensemble"; }

  Status fit(std::span<const Sample> train) override {
    for (auto& m : members_) TP_RETURN_IF_ERROR(m->fit(train));
    fitted_ = true;
    return Status::Ok();
  }

  Status fit_adapted(std::span<const Sample> train, std::span<const Sample> target) override {
    for (auto& m : members_) TP_RETURN_IF_ERROR(m->fit_adapted(train, target));
    fitted_ = true;
    return Status::Ok();
  }

  Result<std::vector<double>> predict(std::span<const Sample> samples) const override {
    if (!fitted_) return Status::InvalidArgument("the ensemble cost model is not trained: fit it or load a model file");
    std::vector<double> log_sum(samples.size(), 0.0);
    for (const auto& m : members_) {
      TP_ASSIGN_OR_RETURN(std::vector<double> p, m->predict(samples));
      for (size_t i = 0; i < p.size(); ++i) log_sum[i] += std::log(p[i]);
    }
    for (double& x : log_sum) x = std::exp(x / static_cast<double>(members_.size()));
    return log_sum;
  }

  Status fine_tune(std::span<const Sample> more) override {
    if (!fitted_) return Status::InvalidArgument("the ensemble cost model is not trained: fit it before fine-tuning");
    for (auto& m : members_) TP_RETURN_IF_ERROR(m->fine_tune(more));
    return Status::Ok();
  }

  Result<nlohmann::json> payload() const override {
    if (!fitted_) return Status::InvalidArgument("the ensemble cost model is not trained: nothing to save");
    nlohmann::json members = nlohmann::json::array();
    for (const auto& m : members_) {
      TP_ASSIGN_OR_RETURN(nlohmann::json p, m->payload());
      members.push_back({{"kind", m->kind()}, {"payload", std::move(p)}});
    }
    return nlohmann::json{{"members", std::move(members)}};
  }

  void set_fitted() { fitted_ = true; }

 private:
  std::vector<std::unique_ptr<CostModel>> members_;
  bool fitted_ = false;
};

}  // namespace

std::unique_ptr<CostModel> make_ensemble_cost_model(const CostModelOptions& options) {
  std::vector<std::unique_ptr<CostModel>> members;
  // Both members are rows of the registry's table, so the lookup cannot fail (value() would throw).
  for (const char* kind : kMembers) members.push_back(make_cost_model(kind, options).value());
  return std::make_unique<EnsembleCostModel>(std::move(members));
}

Result<std::unique_ptr<CostModel>> load_ensemble_cost_model(const nlohmann::json& payload,
                                                            const CostModelOptions& options) {
  const size_t n = std::size(kMembers);
  if (!payload.is_object() || !payload.contains("members") || !payload["members"].is_array() ||
      payload["members"].size() != n)
    return Status::Corruption("an ensemble cost model's payload must hold its " + std::to_string(n) + " members");
  std::vector<std::unique_ptr<CostModel>> members;
  for (size_t i = 0; i < n; ++i) {
    const nlohmann::json& m = payload["members"][i];
    if (!m.is_object() || m.value("kind", std::string()) != kMembers[i] || !m.contains("payload"))
      return Status::Corruption("member " + std::to_string(i + 1) + " of an ensemble cost model must be a '" +
                                kMembers[i] + "' model");
    TP_ASSIGN_OR_RETURN(std::unique_ptr<CostModel> loaded, load_cost_model_payload(kMembers[i], m["payload"], options));
    members.push_back(std::move(loaded));
  }
  auto model = std::make_unique<EnsembleCostModel>(std::move(members));
  model->set_fitted();
  return std::unique_ptr<CostModel>(std::move(model));
}

}  // namespace tensorperf::costmodel
