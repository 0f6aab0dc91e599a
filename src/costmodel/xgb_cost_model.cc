// The XGBoost cost model: gradient-boosted regression trees on the pooled program vector and the
// device vector, fitted to ln(seconds / roofline estimate) (costmodel/roofline.h): latencies span
// six orders of magnitude, and the log makes the squared error a relative one; dividing by the
// estimate leaves the trees the program's distance from its device's roofline, which holds for
// workloads larger than the training set's, where ln(seconds) itself cannot be extrapolated.
// Models saved before the estimate was used (payload without "target") predict ln(seconds).
#include <algorithm>
#include <cmath>
#include <string>

#include "costmodel/cost_model.h"
#include "costmodel/fine_tune_validation.h"
#include "costmodel/gbdt.h"
#include "costmodel/roofline.h"
#include "costmodel/xgb_cost_model.h"

namespace tensorperf::costmodel {
namespace {

class XgbCostModel final : public CostModel {
 public:
  explicit XgbCostModel(const CostModelOptions& options) : options_(options) {}

  std::string kind() const override { return "xgb"; }

  Status fit(std::span<const Sample> train) override {
    TP_RETURN_IF_ERROR(check_training_set(train));
    TP_ASSIGN_OR_RETURN(Matrix x, matrix(train));
    roofline_ = true;
    const std::vector<float> labels = targets(train);
    GbdtOptions o;
    o.objective = "reg:squarederror";
    o.rounds = 400;
    o.max_depth = 10;
    o.eta = 0.08;
    o.subsample = 0.9;
    // From 12,000 samples on, leaves of at least 6 samples, their values shrunk by an L2 penalty
    // of 3: a held-out network's unseen workloads are predicted about a point better (mean
    // cross-model MAPE) than with leaves of 2 and XGBoost's penalty of 1, seen workloads within
    // 0.2 points (random split); leaves of 20 with a penalty of 10 gained a little more on unseen
    // networks but cost a point on the whole dataset's random split (docs/costmodel.md, "xgb's
    // leaves on the whole dataset"). Smaller sets scale down to leaves of 2 and a penalty of 1:
    // 44 samples with large leaves could hardly split (random split 52% against 20%).
    const double n = static_cast<double>(train.size());
    o.min_child_weight = std::clamp(n / 2000, 2.0, 6.0);
    o.lambda = std::clamp(n / 4000, 1.0, 3.0);
    o.threads = options_.threads;
    o.seed = options_.seed;
    TP_ASSIGN_OR_RETURN(Gbdt model, Gbdt::train(x, labels, {}, {}, o));
    gbdt_ = std::make_unique<Gbdt>(std::move(model));
    return Status::Ok();
  }

  // Shallow trees at a small rate on the new device's samples: they correct the pre-trained model
  // where it is off there without room to memorise a few hundred rows. Whether: what k-fold
  // cross-validation on those samples says (fine_tune_validation.h); with a few dozen noisy
  // samples of a device whose siblings it was trained on, the pre-trained model is often better.
  Status fine_tune(std::span<const Sample> more) override {
    if (!gbdt_) return Status::InvalidArgument("the xgb cost model is not trained");
    TP_RETURN_IF_ERROR(check_training_set(more));
    TP_RETURN_IF_ERROR(matrix(more).status());  // a sample of the wrong width, however few there are
    const auto adapt_copy = [](CostModel& copy, std::span<const Sample> s) {
      return static_cast<XgbCostModel&>(copy).boost(s);
    };
    TP_ASSIGN_OR_RETURN(const bool pays, fine_tuning_pays(*this, more, adapt_copy, options_));
    return pays ? boost(more) : Status::Ok();
  }

  // fine_tune's training, unconditional: kFineTuneRounds more trees on `more`.
  Status boost(std::span<const Sample> more) {
    TP_ASSIGN_OR_RETURN(Matrix x, matrix(more));
    GbdtOptions o = fine_tune_options();
    o.rounds = kFineTuneRounds;
    return gbdt_->boost_more(x, targets(more), o);
  }

  Result<std::vector<double>> predict(std::span<const Sample> samples) const override {
    if (!gbdt_) return Status::InvalidArgument("the xgb cost model is not trained");
    if (samples.empty()) return std::vector<double>{};
    TP_ASSIGN_OR_RETURN(Matrix x, matrix(samples));
    TP_ASSIGN_OR_RETURN(std::vector<float> logs, gbdt_->predict(x));
    std::vector<double> out;
    out.reserve(logs.size());
    for (size_t i = 0; i < logs.size(); ++i)
      out.push_back(std::exp(static_cast<double>(logs[i])) * target_unit(samples[i], roofline_));
    return out;
  }

  Result<nlohmann::json> payload() const override {
    if (!gbdt_) return Status::InvalidArgument("the xgb cost model is not trained");
    TP_ASSIGN_OR_RETURN(std::string booster, gbdt_->save());
    nlohmann::json out{{"booster", booster}};
    if (roofline_) out["target"] = kRooflineTarget;
    return out;
  }

  Status restore(const nlohmann::json& payload) {
    if (!payload.is_object() || !payload.contains("booster") || !payload["booster"].is_string())
      return Status::Corruption("xgb cost model: the payload has no booster");
    TP_ASSIGN_OR_RETURN(roofline_, uses_roofline_target(payload, "xgb"));
    TP_ASSIGN_OR_RETURN(Gbdt model, Gbdt::load(payload["booster"].get<std::string>(), options_.threads));
    if (model.features() != row_width())
      return Status::InvalidArgument("xgb cost model: the booster takes " + std::to_string(model.features()) +
                                     " features, this build's rows have " + std::to_string(row_width()));
    gbdt_ = std::make_unique<Gbdt>(std::move(model));
    return Status::Ok();
  }

 private:
  // The regression target: ln(seconds / roofline estimate), or ln(seconds) for an old model.
  std::vector<float> targets(std::span<const Sample> samples) const {
    std::vector<float> out;
    out.reserve(samples.size());
    for (const Sample& s : samples)
      out.push_back(static_cast<float>(std::log(s.seconds / target_unit(s, roofline_))));
    return out;
  }

  GbdtOptions fine_tune_options() const {
    GbdtOptions o;
    o.max_depth = 3;
    o.eta = 0.1;
    o.subsample = 0.8;
    o.min_child_weight = 3;
    o.threads = options_.threads;
    o.seed = options_.seed;
    return o;
  }

  static Result<Matrix> matrix(std::span<const Sample> samples) {
    Matrix x;
    x.cols = row_width();
    x.values.reserve(samples.size() * x.cols);
    for (const Sample& s : samples) {
      const size_t before = x.values.size();
      append_row(s, x.values);
      if (x.values.size() - before != x.cols)
        return Status::InvalidArgument("a sample of " + s.workload + " has " + std::to_string(s.program.size()) +
                                       " program and " + std::to_string(s.device.size()) +
                                       " device features; the model takes " + std::to_string(x.cols) + " in all");
    }
    return x;
  }

  // The rounds fine-tuning boosts, when cross-validation says they pay (xgb always boosted them
  // before 2026-12-07).
  static constexpr int kFineTuneRounds = 60;

  CostModelOptions options_;
  std::unique_ptr<Gbdt> gbdt_;
  bool roofline_ = true;  // the target is relative to roofline_seconds (false: a model saved before)
};

}  // namespace

std::unique_ptr<CostModel> make_xgb_cost_model(const CostModelOptions& options) {
  return std::make_unique<XgbCostModel>(options);
}

Result<std::unique_ptr<CostModel>> load_xgb_cost_model(const nlohmann::json& payload, const CostModelOptions& options) {
  auto model = std::make_unique<XgbCostModel>(options);
  TP_RETURN_IF_ERROR(model->restore(payload));
  return std::unique_ptr<CostModel>(std::move(model));
}

}  // namespace tensorperf::costmodel
