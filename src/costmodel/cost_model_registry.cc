// The one table of cost models, and their files.
#include <fstream>

#include "base/atomic_file.h"
#include "base/read_file.h"
#include "costmodel/cost_model.h"
#include "costmodel/cross_features.h"
#include "costmodel/device_table.h"
#include "costmodel/ensemble_cost_model.h"
#include "costmodel/neural_cost_models.h"
#include "costmodel/xgb_cost_model.h"
#include "measure/device.h"

namespace tensorperf::costmodel {

const std::vector<CostModelEntry>& cost_models() {
  static const std::vector<CostModelEntry> table = {
      {"xgb",
       "gradient-boosted trees (XGBoost) on the pooled program vector and the device vector, log of latency over a "
       "roofline estimate",
       make_xgb_cost_model, load_xgb_cost_model},
      {"mlp",
       "multilayer perceptron (libtorch, 2 hidden layers of 256) on the standardised program and device vectors, log "
       "of latency over a roofline estimate",
       make_mlp_cost_model, load_mlp_cost_model},
      {"transformer",
       "CDMPP-style (libtorch): a transformer over the loop-nest leaves with tree positions, program and device "
       "encoders, an MLP decoder; Box-Cox targets, MSE + MAPE",
       make_transformer_cost_model, load_transformer_cost_model},
      {"ensemble", "xgb and mlp trained on the same samples, the geometric mean of their predictions",
       make_ensemble_cost_model, load_ensemble_cost_model},
  };
  return table;
}

std::string cost_model_names() {
  std::string names;
  for (const CostModelEntry& e : cost_models()) names += (names.empty() ? "" : ", ") + std::string(e.name);
  return names;
}

Result<std::unique_ptr<CostModel>> make_cost_model(std::string_view name, const CostModelOptions& options) {
  for (const CostModelEntry& e : cost_models())
    if (e.name == name) return e.make(options);
  return Status::NotFound("unknown cost model '" + std::string(name) + "' (known: " + cost_model_names() + ")");
}

Result<std::unique_ptr<CostModel>> load_cost_model_payload(std::string_view kind, const nlohmann::json& payload,
                                                           const CostModelOptions& options) {
  for (const CostModelEntry& e : cost_models())
    if (e.name == kind) return e.load(payload, options);
  return Status::NotFound("unknown cost model '" + std::string(kind) + "' (known: " + cost_model_names() + ")");
}

Result<std::unique_ptr<CostModel>> copy_cost_model(const CostModel& model, const CostModelOptions& options) {
  TP_ASSIGN_OR_RETURN(nlohmann::json payload, model.payload());
  return load_cost_model_payload(model.kind(), payload, options);
}

nlohmann::json feature_schema() {
  return {{"program", features::pooled_feature_names()},
          {"device", measure::device_feature_names()},
          {"cross", cross_feature_names()}};
}

size_t row_width() {
  return features::pooled_feature_names().size() + measure::device_feature_names().size() +
         cross_feature_names().size();
}

void append_row(const Sample& s, std::vector<float>& out) {
  out.insert(out.end(), s.program.begin(), s.program.end());
  out.insert(out.end(), s.device.begin(), s.device.end());
  const std::vector<float> cross = cross_features(s);
  out.insert(out.end(), cross.begin(), cross.end());
}

Status save_cost_model(const CostModel& model, const std::string& path, const DeviceTable* trained_on) {
  TP_ASSIGN_OR_RETURN(nlohmann::json payload, model.payload());
  nlohmann::json devices = nlohmann::json::array();
  if (trained_on)
    for (const auto& [key, d] : trained_on->devices()) devices.push_back(measure::device_to_json(d));
  nlohmann::json file{{"format", "tensorperf-cost-model"},
                      {"version", kCostModelFileVersion},
                      {"kind", model.kind()},
                      {"schema", feature_schema()},
                      {"devices", std::move(devices)},
                      {"payload", std::move(payload)}};
  TP_ASSIGN_OR_RETURN(AtomicFile out, AtomicFile::create(path));
  out.stream() << file.dump() << "\n";
  return out.commit();
}

Result<std::unique_ptr<CostModel>> load_cost_model(const std::string& path, const CostModelOptions& options,
                                                   DeviceTable* trained_on) {
  TP_ASSIGN_OR_RETURN(std::string text, read_file(path));
  nlohmann::json file = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (file.is_discarded() || !file.is_object() || file.value("format", "") != "tensorperf-cost-model")
    return Status::Corruption(path + " is not a tensorperf cost model file");
  if (!file.contains("version") || !file["version"].is_number_integer() ||
      file["version"].get<int>() != kCostModelFileVersion)
    return Status::InvalidArgument(path + " is a cost model file of version " +
                                   (file.contains("version") ? file["version"].dump() : std::string("?")) +
                                   "; this build reads version " + std::to_string(kCostModelFileVersion));
  if (!file.contains("schema") || file["schema"] != feature_schema()) {
    const nlohmann::json& schema = file.contains("schema") ? file["schema"] : nlohmann::json::object();
    auto count = [&](const char* part) {
      return schema.contains(part) && schema[part].is_array() ? std::to_string(schema[part].size()) : std::string("?");
    };
    return Status::InvalidArgument(path + " was trained on other features (" + count("program") + " program, " +
                                   count("device") + " device; this build has " +
                                   std::to_string(features::pooled_feature_names().size()) + " and " +
                                   std::to_string(measure::device_feature_names().size()) + "): retrain it");
  }
  if (trained_on && file.contains("devices")) {
    if (!file["devices"].is_array()) return Status::Corruption(path + ": \"devices\" is not a list of device descriptions");
    for (const nlohmann::json& j : file["devices"]) {
      auto d = measure::device_from_json(j);
      if (!d.ok()) return Status::Corruption(path + ": a trained-on device: " + d.status().message());
      trained_on->add(*d);
    }
  }
  const std::string kind = file.value("kind", "");
  for (const CostModelEntry& e : cost_models())
    if (kind == e.name) {
      if (!file.contains("payload")) return Status::Corruption(path + " has no model payload");
      return e.load(file["payload"], options);
    }
  return Status::InvalidArgument(path + " holds a cost model of kind '" + kind + "', which this build does not have (" +
                                 cost_model_names() + ")");
}

}  // namespace tensorperf::costmodel
