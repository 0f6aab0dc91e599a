// The neural baseline: a multilayer perceptron (libtorch) on the standardised pooled program vector
// and device vector, fitted with Adam to standardised ln(seconds / roofline estimate) (the distance
// from the device's roofline, costmodel/roofline.h; models saved before it fit ln(seconds)).
// Deterministic given the seed.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "costmodel/cost_model.h"
#include "costmodel/fine_tune_validation.h"
#include "costmodel/neural_cost_models.h"
#include "costmodel/roofline.h"
#include "costmodel/torch_params.h"
#include "costmodel/training_schedule.h"
#include "measure/device.h"

namespace tensorperf::costmodel {
namespace {

constexpr int64_t kHidden = 256;

struct MlpNet : torch::nn::Module {
  explicit MlpNet(int64_t in) {
    l1 = register_module("l1", torch::nn::Linear(in, kHidden));
    l2 = register_module("l2", torch::nn::Linear(kHidden, kHidden));
    l3 = register_module("l3", torch::nn::Linear(kHidden, 1));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(l1->forward(x));
    x = torch::relu(l2->forward(x));
    return l3->forward(x).squeeze(1);
  }
  torch::nn::Linear l1{nullptr}, l2{nullptr}, l3{nullptr};
};

torch::Tensor rows_of(std::span<const Sample> samples) {
  std::vector<float> values;
  values.reserve(samples.size() * row_width());
  for (const Sample& s : samples) append_row(s, values);
  return torch::from_blob(values.data(), {static_cast<int64_t>(samples.size()), static_cast<int64_t>(row_width())},
                          torch::kFloat32)
      .clone();
}

Status check_widths(std::span<const Sample> samples) {
  const size_t p = features::pooled_feature_names().size(), d = measure::device_feature_names().size();
  for (const Sample& s : samples)
    if (s.program.size() != p || s.device.size() != d)
      return Status::InvalidArgument("a sample of " + s.workload + " has " + std::to_string(s.program.size()) +
                                     " program and " + std::to_string(s.device.size()) + " device features; the model "
                                     "takes " + std::to_string(p) + " and " + std::to_string(d));
  return Status::Ok();
}

class MlpCostModel final : public CostModel {
 public:
  explicit MlpCostModel(const CostModelOptions& options) : options_(options) {}

  std::string kind() const override { return "mlp"; }

  Status fit(std::span<const Sample> train) override {
    TP_RETURN_IF_ERROR(check_training_set(train));
    TP_RETURN_IF_ERROR(check_widths(train));
    roofline_ = true;
    std::vector<float> y;
    for (const Sample& s : train) y.push_back(log_target(s));
    torch::manual_seed(options_.seed);
    torch::set_num_threads(1);  // training: intra-op threads made it 4.9x slower on 2 cores (costmodel_bench)
    torch::Tensor x = rows_of(train);
    standardizer_.fit(x);
    x = standardizer_.apply(x);
    torch::Tensor target = torch::from_blob(y.data(), {static_cast<int64_t>(y.size())}, torch::kFloat32).clone();
    y_mean_ = target.mean().item<float>();
    y_scale_ = std::max(1e-6f, target.std(/*unbiased=*/false).item<float>());
    target = (target - y_mean_) / y_scale_;

    net_ = std::make_shared<MlpNet>(x.size(1));
    const int64_t n = x.size(0);
    train_steps(x, target, options_.epochs > 0 ? options_.epochs
                                               : static_cast<int>(std::clamp<int64_t>(400000 / std::max<int64_t>(n, 1), 40, 400)),
                1e-3);
    return Status::Ok();
  }

  // More epochs at a third of the rate on the new samples, with the pre-training's normalisation, if
  // cross-validation on them says so (fine_tune_validation.h).
  Status fine_tune(std::span<const Sample> more) override {
    if (!net_) return Status::InvalidArgument("the mlp cost model is not trained");
    TP_RETURN_IF_ERROR(check_training_set(more));
    TP_RETURN_IF_ERROR(check_widths(more));
    const auto adapt_copy = [](CostModel& copy, std::span<const Sample> s) {
      return static_cast<MlpCostModel&>(copy).adapt(s);
    };
    TP_ASSIGN_OR_RETURN(const bool pays, fine_tuning_pays(*this, more, adapt_copy, options_));
    return pays ? adapt(more) : Status::Ok();
  }

  // fine_tune's training, unconditional.
  Status adapt(std::span<const Sample> more) {
    torch::manual_seed(options_.seed);
    torch::set_num_threads(1);
    std::vector<float> y;
    for (const Sample& s : more) y.push_back((log_target(s) - y_mean_) / y_scale_);
    torch::Tensor target = torch::from_blob(y.data(), {static_cast<int64_t>(y.size())}, torch::kFloat32).clone();
    const int64_t n = static_cast<int64_t>(more.size());
    train_steps(standardizer_.apply(rows_of(more)), target,
                static_cast<int>(std::clamp<int64_t>(20000 / std::max<int64_t>(n, 1), 50, 300)), 3e-4);
    return Status::Ok();
  }

  Result<std::vector<double>> predict(std::span<const Sample> samples) const override {
    if (!net_) return Status::InvalidArgument("the mlp cost model is not trained");
    if (samples.empty()) return std::vector<double>{};
    TP_RETURN_IF_ERROR(check_widths(samples));
    torch::NoGradGuard no_grad;
    torch::set_num_threads(options_.threads);
    torch::Tensor out = net_->forward(standardizer_.apply(rows_of(samples))).contiguous();
    const float* v = out.data_ptr<float>();  // not out[i].item(): an operator call per row
    std::vector<double> seconds;
    seconds.reserve(static_cast<size_t>(out.size(0)));
    for (int64_t i = 0; i < out.size(0); ++i)
      seconds.push_back(std::exp(static_cast<double>(v[i]) * y_scale_ + y_mean_) *
                        target_unit(samples[static_cast<size_t>(i)], roofline_));
    return seconds;
  }

  Result<nlohmann::json> payload() const override {
    if (!net_) return Status::InvalidArgument("the mlp cost model is not trained");
    nlohmann::json out{{"hidden", kHidden},
                       {"standardizer", standardizer_.to_json()},
                       {"y_mean", y_mean_},
                       {"y_scale", y_scale_},
                       {"state", module_state(*net_)}};
    if (roofline_) out["target"] = kRooflineTarget;
    return out;
  }

  Status restore(const nlohmann::json& p) {
    if (!p.is_object() || p.value("hidden", 0) != kHidden || !p.contains("state"))
      return Status::Corruption("mlp cost model: the payload is not this model's");
    TP_ASSIGN_OR_RETURN(standardizer_, Standardizer::from_json(p.value("standardizer", nlohmann::json()), row_width()));
    TP_ASSIGN_OR_RETURN(roofline_, uses_roofline_target(p, "mlp"));
    y_mean_ = p.value("y_mean", 0.0f);
    y_scale_ = p.value("y_scale", 1.0f);
    net_ = std::make_shared<MlpNet>(static_cast<int64_t>(row_width()));
    TP_RETURN_IF_ERROR(load_module_state(*net_, p["state"]));
    net_->eval();
    return Status::Ok();
  }

 private:
  // Adam over shuffled mini-batches of (x, target), both standardised, on the schedule of
  // training_schedule.h (the rate falls, the last epochs' weights are averaged).
  void train_steps(const torch::Tensor& x, const torch::Tensor& target, int epochs, double lr) {
    torch::optim::Adam adam(net_->parameters(), torch::optim::AdamOptions(lr).weight_decay(1e-5));
    const int64_t n = x.size(0), batch = 256;
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 rng(options_.seed);
    net_->train();
    train_on_schedule(*net_, adam, lr, epochs, [&](int) {
      std::shuffle(order.begin(), order.end(), rng);
      for (int64_t b = 0; b < n; b += batch) {
        const int64_t len = std::min(batch, n - b);
        torch::Tensor idx = torch::from_blob(order.data() + b, {len}, torch::kInt64);
        adam.zero_grad();
        torch::Tensor loss = torch::mse_loss(net_->forward(x.index_select(0, idx)), target.index_select(0, idx));
        loss.backward();
        adam.step();
      }
    });
    net_->eval();
  }

  CostModelOptions options_;
  Standardizer standardizer_;
  float y_mean_ = 0, y_scale_ = 1;
  bool roofline_ = true;  // the target is relative to roofline_seconds (false: a model saved before)

  // ln(seconds / roofline estimate), or ln(seconds) for a model saved before.
  float log_target(const Sample& s) const {
    return static_cast<float>(std::log(s.seconds / target_unit(s, roofline_)));
  }
  std::shared_ptr<MlpNet> net_;
};

}  // namespace

std::unique_ptr<CostModel> make_mlp_cost_model(const CostModelOptions& options) {
  return std::make_unique<MlpCostModel>(options);
}

Result<std::unique_ptr<CostModel>> load_mlp_cost_model(const nlohmann::json& payload, const CostModelOptions& options) {
  auto model = std::make_unique<MlpCostModel>(options);
  TP_RETURN_IF_ERROR(model->restore(payload));
  return std::unique_ptr<CostModel>(std::move(model));
}

}  // namespace tensorperf::costmodel
