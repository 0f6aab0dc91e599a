#include "costmodel/graph_calibration.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "base/atomic_file.h"
#include "base/median.h"
#include "base/read_file.h"

namespace tensorperf::costmodel {

namespace {

// The rows a matrix product reuses each of its weights over: a dense layer's rows (every dim of its
// input but the last); the smaller side of a (batched) product of two activations.
int64_t product_rows(const ir::Workload& w) {
  if (w.inputs.empty() || w.inputs[0].rank() < 1) return 0;
  const ir::TensorType& a = w.inputs[0];
  if (w.op == ir::OpKind::kDense) {  // x[..., K] x w[M, K]
    int64_t rows = 1;
    for (int64_t i = 0; i + 1 < a.rank(); ++i) rows *= a.shape[i];
    return rows;
  }
  if (w.inputs.size() < 2 || a.rank() < 2 || w.inputs[1].rank() < 2) return 0;
  const ir::TensorType& b = w.inputs[1];
  const int64_t m = w.attrs.get_int("transpose_a", 0) ? a.shape[a.rank() - 1] : a.shape[a.rank() - 2];
  const int64_t n = w.attrs.get_int("transpose_b", 0) ? b.shape[b.rank() - 2] : b.shape[b.rank() - 1];
  return std::min(m, n);
}

}  // namespace

std::string calibration_class(const ir::Workload& w, double chained_share) {
  std::string cls;
  switch (w.op) {
    case ir::OpKind::kConv2d: {
      const int64_t groups = w.attrs.get_int("groups", 1);
      const int64_t channels = !w.inputs.empty() && w.inputs[0].rank() >= 2 ? w.inputs[0].shape[1] : 0;
      if (groups > 1 && groups == channels) {
        cls = "depthwise";
      } else {
        double bytes = static_cast<double>(w.output.num_bytes());
        for (const ir::TensorType& t : w.inputs) bytes += static_cast<double>(t.num_bytes());
        cls = bytes > 0 && w.flops() < kLeanConvFlopsPerByte * bytes ? "conv-lean" : "conv";
      }
      break;
    }
    case ir::OpKind::kDense:
    case ir::OpKind::kMatmul:
    case ir::OpKind::kBatchMatmul:
      cls = product_rows(w) >= kGemmRows ? "gemm" : "dense";
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
  return cls;
}

std::string copy_class(std::string_view op) { return op.empty() ? "copy" : "copy " + std::string(op); }

std::vector<std::string> calibration_fallbacks(std::string_view cls) {
  // A chained operator falls back to its kind run alone; a pool to element-wise ops, a depthwise or
  // lean convolution to convolutions; everything to every kernel.
  std::vector<std::string> out{std::string(cls)};
  // Copies are predicted from bandwidth, not by the cost model: a copy op falls back to every copy.
  if (cls.rfind("copy", 0) == 0) {
    if (cls != "copy") out.push_back("copy");
    return out;
  }
  std::string base(cls);
  if (auto colon = base.find(':'); colon != std::string::npos) {
    base = base.substr(0, colon);
    out.push_back(base);
  }
  if (base == "pool") out.push_back("elementwise");
  if (base == "depthwise" || base == "conv-lean") out.push_back("conv");
  // A product of many rows is not a dense layer of a few: those stream their weights from memory,
  // it reuses them from cache. Without products of its own it takes every kernel's fit.
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
  c.cold_reads = j.value("cold_reads", false);  // absent: predicted before it was counted
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
    const int64_t n = op["count"].get<int64_t>();
    const double measured_s = op["measured_ms"].get<double>() / 1e3;
    c.ops.push_back({calibration_class(*w, op.value("chained_share", 0.0)), uncalibrated_ms(op) / 1e3, measured_s, n});
    c.measured_parts_s += measured_s * static_cast<double>(n);
  }
  if (j.contains("copies") && j["copies"].is_array())
    for (const nlohmann::json& copy : j["copies"]) {
      if (!copy.is_object() || !copy.contains("count") || !copy["count"].is_number_integer() ||
          !copy.contains("predicted_ms") || !copy["predicted_ms"].is_number())
        return bad("a layout copy without count or predicted_ms");
      if (!copy.contains("measured_ms") || !copy["measured_ms"].is_number()) continue;  // not run
      const int64_t n = copy["count"].get<int64_t>();
      const double measured_s = copy["measured_ms"].get<double>() / 1e3;
      if (!(measured_s > 0)) continue;  // a copy the run placed in its output: nothing timed
      const std::string op = copy.contains("op") && copy["op"].is_string() ? copy["op"].get<std::string>() : "";
      c.ops.push_back({copy_class(op), uncalibrated_ms(copy) / 1e3, measured_s, n});
      c.measured_parts_s += measured_s * static_cast<double>(n);
    }
  if (c.ops.empty()) return bad("no operator with a run's time");
  return c;
}

namespace {

// Per class, the normal equations of the weighted least squares fit of measured = factor x predicted
// + added over its instances in `runs`, each squared error weighted by count / measured. A copy op's
// instances count towards every copy too, a kernel's towards every kernel ("all").
CalibrationFits fit_runs(const std::vector<const GraphComparison*>& runs, int min_models) {
  struct Sums {
    double pp = 0, p = 0, one = 0, pm = 0, m = 0;
    std::set<size_t> runs;
    int64_t instances = 0;
  };
  std::map<std::string, Sums> sums;
  std::vector<double> overheads;
  for (size_t r = 0; r < runs.size(); ++r) {
    const GraphComparison& c = *runs[r];
    for (const GraphComparison::Op& op : c.ops) {
      if (!(op.predicted_s > 0) || !(op.measured_s > 0) || op.count <= 0) continue;
      const std::string group = op.cls.rfind("copy", 0) == 0 ? "copy" : "all";
      std::vector<std::string> into{op.cls};
      if (op.cls != group) into.push_back(group);
      for (const std::string& k : into) {
        Sums& s = sums[k];
        const double w = static_cast<double>(op.count) / op.measured_s;
        s.pp += w * op.predicted_s * op.predicted_s;
        s.p += w * op.predicted_s;
        s.one += w;
        s.pm += w * op.predicted_s * op.measured_s;
        s.m += w * op.measured_s;
        s.runs.insert(r);
        s.instances += op.count;
      }
    }
    if (c.measured_parts_s > 0) overheads.push_back(c.measured_s / c.measured_parts_s);
  }
  CalibrationFits out;
  out.runs = static_cast<int>(runs.size());
  for (const auto& [cls, s] : sums) {
    if (static_cast<int>(s.runs.size()) < min_models || !(s.pp > 0)) continue;
    CalibrationFit f;
    f.models = static_cast<int>(s.runs.size());
    f.instances = s.instances;
    const double det = s.pp * s.one - s.p * s.p;
    if (det > 1e-12 * s.pp * s.one) {
      f.factor = (s.pm * s.one - s.p * s.m) / det;
      f.added_s = (s.pp * s.m - s.p * s.pm) / det;
    }
    // One length of kernel, or a fit that would take time off every kernel: the factor alone.
    if (!(det > 1e-12 * s.pp * s.one) || f.added_s < 0 || !(f.factor > 0)) {
      f.factor = s.pm / s.pp;
      f.added_s = 0;
    }
    out.fits[cls] = f;
  }
  if (!overheads.empty() && static_cast<int>(overheads.size()) >= min_models) out.overhead = median(overheads);
  return out;
}

// The first of `cls`'s chain that `fits` holds ("" when none).
std::string first_fitted(const std::map<std::string, CalibrationFit>& fits, std::string_view cls) {
  for (const std::string& c : calibration_fallbacks(cls))
    if (fits.count(c)) return c;
  return "";
}

nlohmann::json fits_json(const std::map<std::string, CalibrationFit>& fits) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [cls, f] : fits)
    out[cls] = {{"factor", f.factor}, {"added_s", f.added_s}, {"models", f.models}, {"instances", f.instances}};
  return out;
}

// Throws nlohmann::json::exception on a missing or mistyped field; "" or what is wrong.
std::string fits_from_json(const nlohmann::json& j, std::map<std::string, CalibrationFit>& fits) {
  for (const auto& [cls, f] : j.items()) {
    CalibrationFit c{f.at("factor").get<double>(), f.at("added_s").get<double>(), f.at("models").get<int>(),
                     f.at("instances").get<int64_t>()};
    if (!(c.factor > 0) || !std::isfinite(c.factor) || !(c.added_s >= 0) || !std::isfinite(c.added_s))
      return "class " + cls + " has factor " + f.at("factor").dump() + " and added_s " + f.at("added_s").dump();
    fits[cls] = c;
  }
  return "";
}

}  // namespace

Result<GraphCalibration> GraphCalibration::fit(const std::vector<GraphComparison>& comparisons, int min_models) {
  if (comparisons.empty()) return Status::InvalidArgument("a calibration needs at least one model's comparison");
  GraphCalibration cal;
  cal.device_ = comparisons.front().device;
  cal.cost_model_id_ = comparisons.front().cost_model_id;
  cal.cold_reads_ = comparisons.front().cold_reads;
  std::vector<const GraphComparison*> all;
  std::map<int64_t, std::vector<const GraphComparison*>> by_batch;
  for (const GraphComparison& c : comparisons) {
    if (c.device != cal.device_)
      return Status::InvalidArgument(c.source + " was run on " + c.device + ", " + comparisons.front().source + " on " +
                                     cal.device_ + ": a calibration is for one device");
    if (c.cost_model_id != cal.cost_model_id_)
      return Status::InvalidArgument(c.source + " and " + comparisons.front().source +
                                     " were predicted with different cost models: a calibration is for one");
    if (c.cold_reads != cal.cold_reads_)
      return Status::InvalidArgument(c.source + " and " + comparisons.front().source +
                                     " differ in whether their predictions count the reads from memory "
                                     "(predict --no-cold-reads): predict them the same way");
    cal.models_.push_back(c.model + " b" + std::to_string(c.batch));
    all.push_back(&c);
    by_batch[c.batch].push_back(&c);
  }
  cal.pooled_ = fit_runs(all, min_models);
  if (by_batch.size() > 1)
    for (const auto& [batch, runs] : by_batch)
      if (batch > 0 && static_cast<int>(runs.size()) >= min_models) cal.batches_[batch] = fit_runs(runs, min_models);
  return cal;
}

GraphCalibration GraphCalibration::for_batch(int64_t batch) const {
  GraphCalibration out = *this;
  out.batch_ = 0;
  if (batch <= 0) return out;
  double best = 0;
  for (const auto& [b, fits] : batches_) {
    const double d = std::abs(std::log(static_cast<double>(b) / static_cast<double>(batch)));
    if (out.batch_ == 0 || d < best - 1e-12) {
      out.batch_ = b;
      best = d;
    }
  }
  return out;
}

const CalibrationFits* GraphCalibration::selected() const {
  auto it = batches_.find(batch_);  // batch_ is 0 (no key) or a key for_batch took from batches_
  return it == batches_.end() ? nullptr : &it->second;
}

double GraphCalibration::overhead() const {
  const CalibrationFits* s = selected();
  return s ? s->overhead : pooled_.overhead;
}

std::string GraphCalibration::fit_source(std::string_view cls) const {
  if (const CalibrationFits* s = selected())
    if (std::string c = first_fitted(s->fits, cls); !c.empty()) return c + "@b" + std::to_string(batch_);
  return first_fitted(pooled_.fits, cls);
}

const CalibrationFit* GraphCalibration::fit_for(std::string_view cls) const {
  for (const CalibrationFits* s : {selected(), &pooled_})
    if (s)
      if (std::string c = first_fitted(s->fits, cls); !c.empty()) return &s->fits.at(c);
  return nullptr;
}

nlohmann::json GraphCalibration::to_json() const {
  nlohmann::json batches = nlohmann::json::object();
  for (const auto& [b, f] : batches_)
    batches[std::to_string(b)] = {{"overhead", f.overhead}, {"runs", f.runs}, {"fits", fits_json(f.fits)}};
  return {{"format", "tensorperf-graph-calibration"},
          {"version", kGraphCalibrationVersion},
          {"device", device_},
          {"cost_model_id", cost_model_id_},
          {"cold_reads", cold_reads_},
          {"overhead", pooled_.overhead},
          {"runs", pooled_.runs},
          {"fits", fits_json(pooled_.fits)},
          {"batches", batches},
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
  auto positive = [](double x) { return x > 0 && std::isfinite(x); };
  try {
    cal.device_ = j.at("device").get<std::string>();
    cal.cost_model_id_ = j.at("cost_model_id").get<std::string>();
    cal.cold_reads_ = j.at("cold_reads").get<bool>();
    cal.pooled_.overhead = j.at("overhead").get<double>();
    cal.pooled_.runs = j.at("runs").get<int>();
    if (std::string why = fits_from_json(j.at("fits"), cal.pooled_.fits); !why.empty())
      return Status::Corruption(source + ": " + why);
    if (!positive(cal.pooled_.overhead))
      return Status::Corruption(source + ": overhead " + j.at("overhead").dump() + " is not a positive number");
    for (const auto& [b, f] : j.at("batches").items()) {
      char* end = nullptr;
      const long long batch = std::strtoll(b.c_str(), &end, 10);
      if (b.empty() || *end != '\0' || batch <= 0)
        return Status::Corruption(source + ": batches: \"" + b + "\" is not a batch size");
      CalibrationFits& fits = cal.batches_[batch];
      fits.overhead = f.at("overhead").get<double>();
      fits.runs = f.at("runs").get<int>();
      if (std::string why = fits_from_json(f.at("fits"), fits.fits); !why.empty())
        return Status::Corruption(source + ": batch " + b + ": " + why);
      if (!positive(fits.overhead))
        return Status::Corruption(source + ": batch " + b + ": overhead " + f.at("overhead").dump() +
                                  " is not a positive number");
    }
    cal.models_ = j.at("models").get<std::vector<std::string>>();
  } catch (const nlohmann::json::exception& e) {
    return Status::Corruption(source + ": " + e.what());
  }
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
