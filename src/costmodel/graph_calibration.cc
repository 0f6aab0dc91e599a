#include "costmodel/graph_calibration.h"

#include <algorithm>
#include <cmath>

#include "base/atomic_file.h"
#include "base/median.h"
#include "base/read_file.h"

namespace tensorperf::costmodel {

std::string time_bucket(double seconds) {
  if (seconds < 10e-6) return "<10us";
  if (seconds < 100e-6) return "10-100us";
  if (seconds < 1e-3) return "0.1-1ms";
  if (seconds < 10e-3) return "1-10ms";
  return ">10ms";
}

std::string calibration_class(const ir::Workload& w, double chained_share, double predicted_s) {
  std::string cls;
  switch (w.op) {
    case ir::OpKind::kConv2d: {
      const int64_t groups = w.attrs.get_int("groups", 1);
      const int64_t channels = !w.inputs.empty() && w.inputs[0].rank() >= 2 ? w.inputs[0].shape[1] : 0;
      cls = groups > 1 && groups == channels ? "depthwise" : "conv";
      break;
    }
    case ir::OpKind::kDense:
    case ir::OpKind::kMatmul:
    case ir::OpKind::kBatchMatmul:
      cls = "dense";
      break;
    case ir::OpKind::kMaxPool2d:
    case ir::OpKind::kAvgPool2d:
    case ir::OpKind::kGlobalAvgPool2d:
      cls = "pool";
      break;
    default:
      cls = "elementwise";  // activations, sums, normalisations, softmax: memory-bound kernels
  }
  if (chained_share >= 0.5) cls += ":chained";
  return cls + " " + time_bucket(predicted_s);
}

std::string copy_class(std::string_view op) { return op.empty() ? "copy" : "copy " + std::string(op); }

std::vector<std::string> calibration_fallbacks(std::string_view cls) {
  // A class of one length of kernel falls back to the class of every length, a chained operator to
  // its kind run alone; a pool to element-wise ops, a depthwise convolution to convolutions;
  // everything to every kernel.
  std::vector<std::string> out{std::string(cls)};
  // Copies are predicted from bandwidth, not by the cost model: a copy op falls back to every copy.
  if (cls.rfind("copy", 0) == 0) {
    if (cls != "copy") out.push_back("copy");
    return out;
  }
  std::string base(cls);
  if (auto space = base.find(' '); space != std::string::npos) {
    base = base.substr(0, space);
    out.push_back(base);
  }
  if (auto colon = base.find(':'); colon != std::string::npos) {
    base = base.substr(0, colon);
    out.push_back(base);
  }
  if (base == "pool") out.push_back("elementwise");
  if (base == "depthwise") out.push_back("conv");
  if (out.back() != "all") out.push_back("all");
  return out;
}

namespace {

// An operator's prediction before any calibration (a prediction made with --calibration keeps it).
double uncalibrated_ms(const nlohmann::json& op) {
  if (op.contains("predicted_uncalibrated_ms") && op["predicted_uncalibrated_ms"].is_number())
    return op["predicted_uncalibrated_ms"].get<double>();
  return op.value("predicted_ms", 0.0);
}

}  // namespace

Result<GraphComparison> comparison_from_predict_json(const nlohmann::json& j, const std::string& source) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument(source + ": " + why +
                                   " (expected the output of `tensorperf predict --compare --json`)");
  };
  if (!j.is_object()) return bad("not a JSON object");
  if (!j.contains("measured_ms") || !j["measured_ms"].is_number() || !j.contains("ops") || !j["ops"].is_array())
    return bad("no run's times (measured_ms) in it");
  GraphComparison c;
  c.source = source;
  c.model = j.value("model", "");
  c.batch = j.value("batch", int64_t{0});
  c.device = j.value("device", "");
  c.cost_model_id = j.value("cost_model_id", "");
  if (c.device.empty()) return bad("no device key");
  c.measured_s = j["measured_ms"].get<double>() / 1e3;
  if (!(c.measured_s > 0)) return bad("measured_ms is not positive");
  for (const nlohmann::json& op : j["ops"]) {
    if (!op.is_object() || !op.contains("workload") || !op["workload"].is_string() || !op.contains("count") ||
        !op["count"].is_number_integer() || !op.contains("predicted_ms") || !op["predicted_ms"].is_number())
      return bad("an operator without workload, count or predicted_ms");
    auto w = ir::parse_workload_key(op["workload"].get<std::string>());
    if (!w.ok()) return bad("operator " + op["workload"].get<std::string>() + ": " + w.status().message());
    if (!op.contains("measured_ms") || !op["measured_ms"].is_number()) continue;  // not run (should not happen)
    const double n = static_cast<double>(op["count"].get<int64_t>());
    GraphComparison::Part& p =
        c.classes[calibration_class(*w, op.value("chained_share", 0.0), uncalibrated_ms(op) / 1e3)];
    p.predicted_s += uncalibrated_ms(op) / 1e3 * n;
    p.measured_s += op["measured_ms"].get<double>() / 1e3 * n;
    p.instances += op["count"].get<int64_t>();
    c.measured_parts_s += op["measured_ms"].get<double>() / 1e3 * n;
  }
  if (j.contains("copies") && j["copies"].is_array())
    for (const nlohmann::json& copy : j["copies"]) {
      if (!copy.is_object() || !copy.contains("measured_ms") || !copy.contains("predicted_ms")) continue;
      const double n = static_cast<double>(copy.value("count", int64_t{1}));
      const double measured = copy["measured_ms"].get<double>() / 1e3 * n;
      if (!(measured > 0)) continue;  // a copy the run placed in its output: nothing timed
      GraphComparison::Part& p = c.classes[copy_class(copy.value("op", ""))];
      p.predicted_s += uncalibrated_ms(copy) / 1e3 * n;
      p.measured_s += measured;
      p.instances += copy.value("count", int64_t{1});
      c.measured_parts_s += measured;
    }
  if (c.classes.empty()) return bad("no operator with a run's time");
  return c;
}

Result<GraphCalibration> GraphCalibration::fit(const std::vector<GraphComparison>& comparisons, int min_models) {
  if (comparisons.empty()) return Status::InvalidArgument("a calibration needs at least one model's comparison");
  GraphCalibration cal;
  cal.device_ = comparisons.front().device;
  cal.cost_model_id_ = comparisons.front().cost_model_id;
  for (const GraphComparison& c : comparisons) {
    if (c.device != cal.device_)
      return Status::InvalidArgument(c.source + " was run on " + c.device + ", " + comparisons.front().source + " on " +
                                     cal.device_ + ": a calibration is for one device");
    if (c.cost_model_id != cal.cost_model_id_)
      return Status::InvalidArgument(c.source + " and " + comparisons.front().source +
                                     " were predicted with different cost models: a calibration is for one");
    cal.models_.push_back(c.model + " b" + std::to_string(c.batch));
  }
  // Per class, each run's (ratio, the run's time in the class); a class of one length of kernel
  // counts towards its class of every length too, and every kernel towards "all" (copies aside).
  std::map<std::string, std::vector<std::pair<double, double>>> ratios;
  std::map<std::string, int64_t> instances;
  std::vector<double> overheads;
  for (const GraphComparison& c : comparisons) {
    std::map<std::string, GraphComparison::Part> sums;
    for (const auto& [cls, p] : c.classes) {
      std::vector<std::string> into{cls};
      if (auto space = cls.find(' '); space != std::string::npos) into.push_back(cls.substr(0, space));
      if (cls.rfind("copy", 0) != 0) into.push_back("all");
      for (const std::string& k : into) {
        GraphComparison::Part& s = sums[k];
        s.predicted_s += p.predicted_s;
        s.measured_s += p.measured_s;
        s.instances += p.instances;
      }
    }
    for (const auto& [cls, s] : sums) {
      if (!(s.predicted_s > 0) || !(s.measured_s > 0)) continue;
      ratios[cls].emplace_back(s.measured_s / s.predicted_s, s.measured_s);
      instances[cls] += s.instances;
    }
    if (c.measured_parts_s > 0) overheads.push_back(c.measured_s / c.measured_parts_s);
  }
  // The median weighted by the runs' time in the class: a run that spends 1% of its time in a class
  // says less about it than one that spends half.
  for (auto& [cls, r] : ratios) {
    if (static_cast<int>(r.size()) < min_models) continue;
    std::sort(r.begin(), r.end());
    double total = 0, acc = 0;
    for (const auto& [ratio, weight] : r) total += weight;
    double factor = r.back().first;
    for (const auto& [ratio, weight] : r) {
      acc += weight;
      if (acc >= 0.5 * total) {
        factor = ratio;
        break;
      }
    }
    cal.factors_[cls] = CalibrationFactor{factor, static_cast<int>(r.size()), instances[cls]};
  }
  if (!overheads.empty() && static_cast<int>(overheads.size()) >= min_models) cal.overhead_ = median(overheads);
  return cal;
}

std::string GraphCalibration::factor_source(std::string_view cls) const {
  for (const std::string& c : calibration_fallbacks(cls))
    if (factors_.count(c)) return c;
  return "";
}

double GraphCalibration::factor(std::string_view cls) const {
  const std::string c = factor_source(cls);
  return c.empty() ? 1.0 : factors_.at(c).factor;
}

nlohmann::json GraphCalibration::to_json() const {
  nlohmann::json factors = nlohmann::json::object();
  for (const auto& [cls, f] : factors_)
    factors[cls] = {{"factor", f.factor}, {"models", f.models}, {"instances", f.instances}};
  return {{"format", "tensorperf-graph-calibration"},
          {"version", kGraphCalibrationVersion},
          {"device", device_},
          {"cost_model_id", cost_model_id_},
          {"overhead", overhead_},
          {"factors", factors},
          {"models", models_}};
}

Result<GraphCalibration> GraphCalibration::from_json(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object() || j.value("format", "") != "tensorperf-graph-calibration")
    return Status::Corruption(source + " is not a tensorperf graph calibration (tensorperf calibrate -o FILE)");
  if (!j.contains("version") || !j["version"].is_number_integer() ||
      j["version"].get<int>() != kGraphCalibrationVersion)
    return Status::InvalidArgument(source + " is a graph calibration of version " +
                                   (j.contains("version") ? j["version"].dump() : std::string("?")) +
                                   "; this build reads version " + std::to_string(kGraphCalibrationVersion) +
                                   ": calibrate again");
  GraphCalibration cal;
  try {
    cal.device_ = j.at("device").get<std::string>();
    cal.cost_model_id_ = j.at("cost_model_id").get<std::string>();
    cal.overhead_ = j.at("overhead").get<double>();
    for (const auto& [cls, f] : j.at("factors").items()) {
      CalibrationFactor c{f.at("factor").get<double>(), f.at("models").get<int>(), f.at("instances").get<int64_t>()};
      if (!(c.factor > 0) || !std::isfinite(c.factor))
        return Status::Corruption(source + ": class " + cls + " has factor " + f.at("factor").dump());
      cal.factors_[cls] = c;
    }
    cal.models_ = j.at("models").get<std::vector<std::string>>();
  } catch (const nlohmann::json::exception& e) {
    return Status::Corruption(source + ": " + e.what());
  }
  if (!(cal.overhead_ > 0) || !std::isfinite(cal.overhead_))
    return Status::Corruption(source + ": overhead " + std::to_string(cal.overhead_) + " is not a positive number");
  return cal;
}

Status GraphCalibration::save(const std::string& path) const {
  TP_ASSIGN_OR_RETURN(AtomicFile out, AtomicFile::create(path));
  out.stream() << to_json().dump(2) << "\n";
  return out.commit();
}

Result<GraphCalibration> GraphCalibration::load(const std::string& path) {
  TP_ASSIGN_OR_RETURN(std::string text, read_file(path));
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    return Status::Corruption(path + " is not JSON (a graph calibration: tensorperf calibrate -o FILE)");
  return from_json(j, path);
}

}  // namespace tensorperf::costmodel
