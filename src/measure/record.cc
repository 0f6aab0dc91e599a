#include "measure/record.h"

#include <algorithm>
#include <limits>

#include "base/median.h"

namespace tensorperf::measure {

std::string_view error_name(ErrorCode e) {
  switch (e) {
    case ErrorCode::kNoError: return "no_error";
    case ErrorCode::kInstantiationError: return "instantiation";
    case ErrorCode::kCompileHostError: return "compile_host";
    case ErrorCode::kCompileDeviceError: return "compile_device";
    case ErrorCode::kRuntimeDeviceError: return "runtime_device";
    case ErrorCode::kWrongAnswerError: return "wrong_answer";
    case ErrorCode::kBuildTimeoutError: return "build_timeout";
    case ErrorCode::kRunTimeoutError: return "run_timeout";
    case ErrorCode::kUnknownError: return "unknown";
  }
  return "unknown";
}

std::string_view tensorperf_version() { return "0.1.0"; }

double Record::mean_cost() const {
  if (!ok()) return std::numeric_limits<double>::infinity();
  double sum = 0;
  for (double c : costs) sum += c;
  return sum / static_cast<double>(costs.size());
}

double Record::median_cost() const { return ok() ? median(costs) : std::numeric_limits<double>::infinity(); }

double Record::median_native_cost() const {
  return ok() && !native_costs.empty() ? median(native_costs) : std::numeric_limits<double>::infinity();
}

nlohmann::json record_to_json(const Record& r) {
  // nlohmann::ordered_json would keep insertion order; the plain json sorts keys, which is the
  // canonical order we document, so both sides of a round trip agree.
  nlohmann::json j;
  j["input"] = {{"workload", r.workload_key}, {"device", r.device_key}, {"target", r.target},
                {"provider", r.provider}};
  j["config"] = r.config;
  j["result"] = {{"costs", r.costs},
                 {"error_no", static_cast<int>(r.error)},
                 {"error_msg", r.error_msg},
                 {"build_time", r.build_time_s},
                 {"run_time", r.run_time_s},
                 {"timestamp", r.timestamp}};
  if (r.load >= 0) j["result"]["load"] = r.load;
  if (r.clock_mhz > 0) j["result"]["clock_mhz"] = r.clock_mhz;
  if (!r.native_costs.empty()) j["result"]["native_costs"] = r.native_costs;
  j["version"] = {{"format", r.format}, {"tensorperf", r.version}};
  return j;
}

namespace {

Status require(const nlohmann::json& j, const char* key, nlohmann::json::value_t type, const char* where) {
  auto it = j.find(key);
  if (it == j.end()) return Status::Corruption(std::string("record: missing \"") + where + "." + key + "\"");
  bool fits = it->type() == type ||
              (type == nlohmann::json::value_t::number_float && it->is_number()) ||
              (type == nlohmann::json::value_t::number_integer && it->is_number_integer());
  if (!fits) return Status::Corruption(std::string("record: \"") + where + "." + key + "\" has the wrong type");
  return Status::Ok();
}

}  // namespace

Result<Record> record_from_json(const nlohmann::json& j) {
  using VT = nlohmann::json::value_t;
  if (!j.is_object()) return Status::Corruption("record: not a JSON object");
  for (const char* k : {"input", "result", "version"}) TP_RETURN_IF_ERROR(require(j, k, VT::object, "record"));
  TP_RETURN_IF_ERROR(require(j, "config", VT::object, "record"));
  const auto& in = j["input"];
  const auto& res = j["result"];
  const auto& ver = j["version"];
  for (const char* k : {"workload", "device", "target", "provider"}) TP_RETURN_IF_ERROR(require(in, k, VT::string, "input"));
  TP_RETURN_IF_ERROR(require(res, "costs", VT::array, "result"));
  TP_RETURN_IF_ERROR(require(res, "error_no", VT::number_integer, "result"));
  TP_RETURN_IF_ERROR(require(res, "error_msg", VT::string, "result"));
  for (const char* k : {"build_time", "run_time", "timestamp"}) TP_RETURN_IF_ERROR(require(res, k, VT::number_float, "result"));
  TP_RETURN_IF_ERROR(require(ver, "format", VT::number_integer, "version"));
  TP_RETURN_IF_ERROR(require(ver, "tensorperf", VT::string, "version"));

  Record r;
  r.workload_key = in["workload"].get<std::string>();
  r.device_key = in["device"].get<std::string>();
  r.target = in["target"].get<std::string>();
  r.provider = in["provider"].get<std::string>();
  r.config = j["config"];
  for (const auto& c : res["costs"]) {
    if (!c.is_number()) return Status::Corruption("record: \"result.costs\" holds a non-number");
    r.costs.push_back(c.get<double>());
  }
  if (auto native = res.find("native_costs"); native != res.end()) {
    if (!native->is_array()) return Status::Corruption("record: \"result.native_costs\" is not an array");
    for (const auto& c : *native) {
      if (!c.is_number()) return Status::Corruption("record: \"result.native_costs\" holds a non-number");
      r.native_costs.push_back(c.get<double>());
    }
  }
  int err = res["error_no"].get<int>();
  if (err < 0 || err > 8) return Status::Corruption("record: \"result.error_no\" " + std::to_string(err) + " is not 0..8");
  r.error = static_cast<ErrorCode>(err);
  r.error_msg = res["error_msg"].get<std::string>();
  r.build_time_s = res["build_time"].get<double>();
  r.run_time_s = res["run_time"].get<double>();
  r.timestamp = res["timestamp"].get<double>();
  if (auto load = res.find("load"); load != res.end()) {
    if (!load->is_number() || load->get<double>() < 0)
      return Status::Corruption("record: \"result.load\" is not a non-negative number");
    r.load = load->get<double>();
  }
  if (auto clock = res.find("clock_mhz"); clock != res.end()) {
    if (!clock->is_number() || !(clock->get<double>() > 0))
      return Status::Corruption("record: \"result.clock_mhz\" is not a positive number");
    r.clock_mhz = clock->get<double>();
  }
  r.format = ver["format"].get<int>();
  r.version = ver["tensorperf"].get<std::string>();
  if (r.format != kRecordFormatVersion)
    return Status::Unsupported("record: format " + std::to_string(r.format) + " (this build reads format " +
                               std::to_string(kRecordFormatVersion) + ")");
  return r;
}

std::string record_to_line(const Record& r) {
  // Bytes that are not UTF-8 cannot be written as JSON text: they become U+FFFD instead of an exception.
  return record_to_json(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<Record> record_from_line(std::string_view line) {
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Corruption("record: not valid JSON");
  return record_from_json(j);
}

}  // namespace tensorperf::measure
