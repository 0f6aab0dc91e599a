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

struct CostModelOptions {
  int threads = 1;  // training and prediction threads
  uint64_t seed = 0;
  int epochs = 0;   // neural models: passes over the training set (0: chosen from its size)
};

class CostModel {
 public:
  virtual ~CostModel() = default;
  virtual std::string kind() const = 0;  // its registry name, e.g. "xgb"
  // Trains from scratch on `train` (every sample measured: seconds > 0). InvalidArgument when empty
  // or a sample is unmeasured or has the wrong width.
  virtual Status fit(std::span<const Sample> train) = 0;
  // Predicted seconds, one per sample. FailedPrecondition-like InvalidArgument before fit().
  virtual Result<std::vector<double>> predict(std::span<const Sample> samples) const = 0;
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

// The model file: {"format": "tensorperf-cost-model", "version": 1, "kind", "schema": {"program":
// [names], "device": [names]}, "payload"}, written whole or not at all.
inline constexpr int kCostModelFileVersion = 1;
Status save_cost_model(const CostModel& model, const std::string& path);
// Errors: unreadable (NotFound / IoError), not a model file or damaged (Corruption), another
// format version or feature schema than this build's (InvalidArgument: retrain), unknown kind.
Result<std::unique_ptr<CostModel>> load_cost_model(const std::string& path, const CostModelOptions& options = {});

// The feature schema this build writes and expects.
nlohmann::json feature_schema();

// Builds the dense row of a sample for table models: program | device.
void append_row(const Sample& s, std::vector<float>& out);
size_t row_width();

}  // namespace tensorperf::costmodel
