// Learned cost models: latency in seconds from a Sample (program features and device vector). One
// model per file, one registry table (cost_model_registry.cc). Saved models are files with a format
// version and the feature schema they were trained on; loading one trained on another schema is a
// clear error, not a silent misprediction.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "costmodel/sample.h"

namespace tensorperf::costmodel {

class DeviceTable;

struct CostModelOptions {
  // xgb: XGBoost's threads for training and prediction. mlp: prediction's intra-op threads.
  // transformer: prediction's workers (each a batch of 512 at a time). The neural models train on
  // one thread: their operators are small, and intra-op threads made training 3-5x slower on 2 cores.
  int threads = 1;
  uint64_t seed = 0;
  int epochs = 0;   // neural models: passes over the training set (0: chosen from its size)
  // The transformer's domain regulariser (CDMPP's): weight of the central moment discrepancy between
  // the embeddings of training and target programs in fit_adapted(). 0: none.
  double cmd_weight = 0;
};

class CostModel {
 public:
  virtual ~CostModel() = default;
  virtual std::string kind() const = 0;  // its registry name, e.g. "xgb"
  // Trains from scratch on `train` (every sample measured: seconds > 0). InvalidArgument when empty
  // or a sample is unmeasured or has the wrong width.
  virtual Status fit(std::span<const Sample> train) = 0;
  // fit() knowing the programs it will be asked about, unmeasured (`target`: an unseen network's or
  // a new device's samples; their latencies are not read). A model with a domain regulariser (the
  // transformer, with options.cmd_weight > 0) pulls the embeddings of training and target programs
  // together; the others ignore `target`.
  virtual Status fit_adapted(std::span<const Sample> train, std::span<const Sample> /*target*/) { return fit(train); }
  // Predicted seconds, one per sample. FailedPrecondition-like InvalidArgument before fit().
  virtual Result<std::vector<double>> predict(std::span<const Sample> samples) const = 0;
  // Continues training a fitted model on `more` (a new device's few samples, after pre-training on
  // the others), if cross-validation on `more` says it helps (fine_tune_validation.h; never with
  // fewer than 10 samples): xgb boosts further shallow trees on what the model gets wrong there; the
  // neural models take more, smaller Adam steps, keeping their normalisation. InvalidArgument before
  // fit(), on an empty set or an unmeasured sample.
  virtual Status fine_tune(std::span<const Sample> more) = 0;
  // The model's own state, for save_cost_model; and back (the registry's load).
  virtual Result<nlohmann::json> payload() const = 0;
};

struct CostModelEntry {
  const char* name;
  const char* description;
  std::unique_ptr<CostModel> (*make)(const CostModelOptions&);
  Result<std::unique_ptr<CostModel>> (*load)(const nlohmann::json& payload, const CostModelOptions&);
};

const std::vector<CostModelEntry>& cost_models();
std::string cost_model_names();  // "xgb, ..."
// NotFound naming the known models.
Result<std::unique_ptr<CostModel>> make_cost_model(std::string_view name, const CostModelOptions& options = {});
// A model of kind `kind` from its payload (the registry's load); NotFound naming the known models.
Result<std::unique_ptr<CostModel>> load_cost_model_payload(std::string_view kind, const nlohmann::json& payload,
                                                           const CostModelOptions& options = {});
// An independent copy of a fitted model (its payload through the registry's load).
Result<std::unique_ptr<CostModel>> copy_cost_model(const CostModel& model, const CostModelOptions& options = {});

// The model file: {"format": "tensorperf-cost-model", "version": 1, "kind", "schema": {"program":
// [names], "device": [names], "cross": [names]}, "devices": [descriptions], "payload"}, written whole or
// not at all.
// "devices" holds the descriptions (measure::device_to_json) of the devices the model was trained
// on: their vectors are the ones it learned, so a prediction for one of them must use that vector,
// not peaks measured again (on shared cores a peak probe moves by 10-20% from run to run, enough to
// put a device on the other side of a tree's split on it). Optional: older files have none.
inline constexpr int kCostModelFileVersion = 1;
Status save_cost_model(const CostModel& model, const std::string& path, const DeviceTable* trained_on = nullptr);
// Errors: unreadable (NotFound / IoError), not a model file or damaged (Corruption), another
// format version or feature schema than this build's (InvalidArgument: retrain), unknown kind.
// `trained_on`, when given, receives the file's device descriptions.
Result<std::unique_ptr<CostModel>> load_cost_model(const std::string& path, const CostModelOptions& options = {},
                                                   DeviceTable* trained_on = nullptr);

// The feature schema this build writes and expects.
nlohmann::json feature_schema();

// Builds the dense row of a sample for table models: program | device | cross (cross_features.h).
void append_row(const Sample& s, std::vector<float>& out);
size_t row_width();

}  // namespace tensorperf::costmodel
