#include "costmodel/gbdt.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

namespace tensorperf::costmodel {
namespace {

Status xgb_error(const std::string& what) { return Status::Internal(what + ": " + XGBGetLastError()); }

// A DMatrix freed on scope exit.
class DMatrix {
 public:
  ~DMatrix() {
    if (h_ != nullptr) XGDMatrixFree(h_);
  }
  static Result<DMatrix> of(const Matrix& x) {
    DMatrix d;
    if (XGDMatrixCreateFromMat(x.values.data(), x.rows(), x.cols, std::numeric_limits<float>::quiet_NaN(), &d.h_) != 0)
      return xgb_error("XGBoost could not take a " + std::to_string(x.rows()) + "x" + std::to_string(x.cols) + " matrix");
    return d;
  }
  DMatrix(DMatrix&& o) noexcept : h_(o.h_) { o.h_ = nullptr; }
  DMatrixHandle get() const { return h_; }

 private:
  DMatrix() = default;
  DMatrixHandle h_ = nullptr;
};

Status set(BoosterHandle b, const std::string& name, const std::string& value) {
  if (XGBoosterSetParam(b, name.c_str(), value.c_str()) != 0) return xgb_error("XGBoost rejected " + name + "=" + value);
  return Status::Ok();
}

// The tree and runtime parameters of `options` (everything but the objective).
Status set_tree_params(BoosterHandle b, const GbdtOptions& options) {
  TP_RETURN_IF_ERROR(set(b, "max_depth", std::to_string(options.max_depth)));
  TP_RETURN_IF_ERROR(set(b, "eta", std::to_string(options.eta)));
  TP_RETURN_IF_ERROR(set(b, "subsample", std::to_string(options.subsample)));
  TP_RETURN_IF_ERROR(set(b, "min_child_weight", std::to_string(options.min_child_weight)));
  TP_RETURN_IF_ERROR(set(b, "lambda", std::to_string(options.lambda)));
  TP_RETURN_IF_ERROR(set(b, "nthread", std::to_string(options.threads)));
  // XGBoost's seed is a signed 64-bit integer.
  TP_RETURN_IF_ERROR(set(b, "seed", std::to_string(options.seed & 0x7fffffffffffffffull)));
  TP_RETURN_IF_ERROR(set(b, "verbosity", "0"));
  return set(b, "tree_method", "hist");
}

}  // namespace

Gbdt::~Gbdt() {
  if (booster_ != nullptr) XGBoosterFree(booster_);
}

Gbdt::Gbdt(Gbdt&& o) noexcept : booster_(o.booster_), features_(o.features_) { o.booster_ = nullptr; }

Gbdt& Gbdt::operator=(Gbdt&& o) noexcept {
  if (this != &o) {
    if (booster_ != nullptr) XGBoosterFree(booster_);
    booster_ = o.booster_;
    features_ = o.features_;
    o.booster_ = nullptr;
  }
  return *this;
}

Result<Gbdt> Gbdt::train(const Matrix& x, std::span<const float> labels, std::span<const unsigned> groups,
                         std::span<const float> weights, const GbdtOptions& options) {
  if (x.rows() == 0) return Status::InvalidArgument("no training rows");
  if (labels.size() != x.rows())
    return Status::InvalidArgument(std::to_string(labels.size()) + " labels for " + std::to_string(x.rows()) + " rows");
  size_t grouped = 0;
  for (unsigned g : groups) grouped += g;
  if (!groups.empty() && grouped != x.rows())
    return Status::InvalidArgument("groups cover " + std::to_string(grouped) + " of " + std::to_string(x.rows()) + " rows");
  const bool ranking = options.objective.rfind("rank:", 0) == 0;
  const size_t weight_count = ranking ? (groups.empty() ? 1 : groups.size()) : x.rows();
  if (!weights.empty() && weights.size() != weight_count)
    return Status::InvalidArgument(std::to_string(weights.size()) + " weights, expected " + std::to_string(weight_count));

  TP_ASSIGN_OR_RETURN(DMatrix d, DMatrix::of(x));
  if (XGDMatrixSetFloatInfo(d.get(), "label", labels.data(), labels.size()) != 0) return xgb_error("setting labels");
  if (!groups.empty() && XGDMatrixSetUIntInfo(d.get(), "group", groups.data(), groups.size()) != 0)
    return xgb_error("setting groups");
  if (!weights.empty() && XGDMatrixSetFloatInfo(d.get(), "weight", weights.data(), weights.size()) != 0)
    return xgb_error("setting weights");

  Gbdt model;
  DMatrixHandle handles[] = {d.get()};
  if (XGBoosterCreate(handles, 1, &model.booster_) != 0) return xgb_error("creating a booster");
  model.features_ = x.cols;
  TP_RETURN_IF_ERROR(set(model.booster_, "objective", options.objective));
  TP_RETURN_IF_ERROR(set_tree_params(model.booster_, options));
  for (int i = 0; i < options.rounds; ++i)
    if (XGBoosterUpdateOneIter(model.booster_, i, d.get()) != 0) return xgb_error("boosting round " + std::to_string(i));
  return model;
}

Status Gbdt::boost_more(const Matrix& x, std::span<const float> labels, const GbdtOptions& options) {
  if (booster_ == nullptr) return Status::InvalidArgument("no model to continue");
  if (x.rows() == 0) return Status::InvalidArgument("no training rows");
  if (x.cols != features_)
    return Status::InvalidArgument("model takes " + std::to_string(features_) + " features, got " + std::to_string(x.cols));
  if (labels.size() != x.rows())
    return Status::InvalidArgument(std::to_string(labels.size()) + " labels for " + std::to_string(x.rows()) + " rows");
  TP_ASSIGN_OR_RETURN(std::string bytes, save());
  TP_ASSIGN_OR_RETURN(DMatrix d, DMatrix::of(x));
  if (XGDMatrixSetFloatInfo(d.get(), "label", labels.data(), labels.size()) != 0) return xgb_error("setting labels");
  // A booster that knows the new rows, holding the trees so far.
  Gbdt more;
  DMatrixHandle handles[] = {d.get()};
  if (XGBoosterCreate(handles, 1, &more.booster_) != 0) return xgb_error("creating a booster");
  more.features_ = features_;
  if (XGBoosterLoadModelFromBuffer(more.booster_, bytes.data(), bytes.size()) != 0) return xgb_error("reloading the model");
  TP_RETURN_IF_ERROR(set_tree_params(more.booster_, options));
  TP_ASSIGN_OR_RETURN(const int done, more.rounds());
  for (int i = 0; i < options.rounds; ++i)
    if (XGBoosterUpdateOneIter(more.booster_, done + i, d.get()) != 0)
      return xgb_error("boosting round " + std::to_string(done + i));
  *this = std::move(more);
  return Status::Ok();
}

Result<int> Gbdt::rounds() const {
  int done = 0;
  if (XGBoosterBoostedRounds(booster_, &done) != 0) return xgb_error("reading the model's rounds");
  return done;
}

Result<std::vector<float>> Gbdt::predict(const Matrix& x, int rounds) const {
  if (x.cols != features_)
    return Status::InvalidArgument("model takes " + std::to_string(features_) + " features, got " + std::to_string(x.cols));
  if (x.rows() == 0) return std::vector<float>{};
  // In-place prediction from the dense rows (no DMatrix: building one copies and sketches the rows,
  // which took longer than predicting them). The rows are described by an __array_interface__.
  const nlohmann::json values = {{"data", {reinterpret_cast<uintptr_t>(x.values.data()), true}},
                                 {"shape", {x.rows(), x.cols}},
                                 {"typestr", "<f4"},
                                 {"version", 3}};
  const std::string config = R"({"type": 0, "training": false, "cache_id": 0, "iteration_begin": 0, "iteration_end": )" +
                             std::to_string(std::max(rounds, 0)) + R"(, "strict_shape": false, "missing": NaN})";
  const bst_ulong* shape = nullptr;
  bst_ulong dims = 0;
  const float* out = nullptr;
  if (XGBoosterPredictFromDense(booster_, values.dump().c_str(), config.c_str(), nullptr, &shape, &dims, &out) != 0)
    return xgb_error("predicting");
  bst_ulong n = 1;
  for (bst_ulong i = 0; i < dims; ++i) n *= shape[i];
  if (n != x.rows()) return Status::Internal("XGBoost predicted " + std::to_string(n) + " values for " + std::to_string(x.rows()) + " rows");
  return std::vector<float>(out, out + n);
}

Result<std::string> Gbdt::save() const {
  bst_ulong n = 0;
  const char* bytes = nullptr;
  if (XGBoosterSaveModelToBuffer(booster_, R"({"format": "json"})", &n, &bytes) != 0) return xgb_error("saving a model");
  return std::string(bytes, n);
}

Result<Gbdt> Gbdt::load(const std::string& bytes, int threads) {
  Gbdt model;
  if (XGBoosterCreate(nullptr, 0, &model.booster_) != 0) return xgb_error("creating a booster");
  if (XGBoosterLoadModelFromBuffer(model.booster_, bytes.data(), bytes.size()) != 0)
    return Status::Corruption(std::string("not an XGBoost model: ") + XGBGetLastError());
  TP_RETURN_IF_ERROR(set(model.booster_, "nthread", std::to_string(threads)));
  bst_ulong n = 0;
  if (XGBoosterGetNumFeature(model.booster_, &n) != 0) return xgb_error("reading the feature count");
  model.features_ = n;
  return model;
}

}  // namespace tensorperf::costmodel
