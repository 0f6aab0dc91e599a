#include "db/line_parser.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <unordered_map>

#include <simdjson.h>

#include "db/content_hash.h"

namespace tensorperf::db {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

Status bad(const std::string& what) { return Status::Corruption(what); }

Status implausible(double cost) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%g", cost);
  return bad(std::string("an error-free record has the impossible cost ") + buf +
             " s (costs must be finite, between 1e-12 and 1e6 seconds)");
}

using TargetDescriber = std::function<const DeviceDescription&(std::string_view)>;

// Writes compact JSON into a string, reusing the string's buffer. simdjson::minify() would return a
// new string per call; its string_builder (the same code) lets the buffer be reused.
class Compact {
 public:
  void assign(const element& e, std::string& out) {
    builder_.clear();
    builder_.append(e);
    out.assign(builder_.str());
  }
  // TVM's workload of a task, (task_name, *args), as compact JSON.
  void assign_workload(const element& name, const element& args, std::string& out) {
    builder_.clear();
    builder_.append(name);
    std::string_view n = builder_.str();
    out.assign("[");
    out.append(n);
    builder_.clear();
    builder_.append(args);
    std::string_view a = builder_.str();
    if (a.size() > 2) {
      out.push_back(',');
      out.append(a.substr(1, a.size() - 2));
    }
    out.push_back(']');
  }

 private:
  simdjson::internal::string_builder<> builder_;
};

bool is_number(const element& e) {
  auto t = e.type();
  return t == element_type::DOUBLE || t == element_type::INT64 || t == element_type::UINT64;
}

double number(const element& e) {
  double d = 0;
  if (e.get_double().get(d) == simdjson::SUCCESS) return d;
  int64_t i = 0;
  if (e.get_int64().get(i) == simdjson::SUCCESS) return static_cast<double>(i);
  uint64_t u = 0;
  return e.get_uint64().get(u) == simdjson::SUCCESS ? static_cast<double>(u) : 0.0;
}

Result<element> at(const array& a, size_t i, const char* where) {
  element e;
  if (a.at(i).get(e) != simdjson::SUCCESS) return bad(std::string(where) + " has no element " + std::to_string(i));
  return e;
}

Result<array> as_array(const element& e, const char* where) {
  array a;
  if (e.get_array().get(a) != simdjson::SUCCESS) return bad(std::string(where) + " is not an array");
  return a;
}

Result<std::string_view> as_string(const element& e, const char* where) {
  std::string_view s;
  if (e.get_string().get(s) != simdjson::SUCCESS) return bad(std::string(where) + " is not a string");
  return s;
}

// AutoTVM's result / auto_scheduler's "r": [costs, error_no, all_cost, timestamp].
Status read_result(const element& e, const char* where, ParsedRecord& out, Compact& compact) {
  TP_ASSIGN_OR_RETURN(array r, as_array(e, where));
  TP_ASSIGN_OR_RETURN(element costs_e, at(r, 0, where));
  TP_ASSIGN_OR_RETURN(element err_e, at(r, 1, where));
  TP_ASSIGN_OR_RETURN(element all_cost_e, at(r, 2, where));
  TP_ASSIGN_OR_RETURN(element ts_e, at(r, 3, where));
  TP_ASSIGN_OR_RETURN(array costs, as_array(costs_e, "the costs"));
  int64_t err = 0;
  if (err_e.get_int64().get(err) != simdjson::SUCCESS || err < 0 || err > 8)
    return bad("the error number is not an integer in 0..8");
  if (!is_number(all_cost_e)) return bad("the build time (all_cost) is not a number");
  if (!is_number(ts_e)) return bad("the timestamp is not a number");
  out.error_no = static_cast<int>(err);
  out.build_time_s = number(all_cost_e);
  out.timestamp = number(ts_e);
  compact.assign(costs_e, out.costs);
  out.mean_cost.reset();
  if (err == 0) {
    double sum = 0;
    size_t n = 0;
    for (element c : costs) {
      if (!is_number(c)) return bad("an error-free record has a cost that is not a number");
      if (!plausible_cost(number(c))) return implausible(number(c));
      sum += number(c);
      ++n;
    }
    if (n == 0) return bad("an error-free record has no costs");
    out.mean_cost = sum / static_cast<double>(n);
  }
  return Status::Ok();
}

Status parse_autotvm_v02(const object& root, ParsedRecord& out, const TargetDescriber& describe, Compact& compact) {
  element input_e, config_e, result_e;
  if (root["config"].get(config_e) != simdjson::SUCCESS) return bad("AutoTVM v0.2 record without \"config\"");
  if (root["result"].get(result_e) != simdjson::SUCCESS) return bad("AutoTVM v0.2 record without \"result\"");
  if (root["input"].get(input_e) != simdjson::SUCCESS) return bad("AutoTVM v0.2 record without \"input\"");
  TP_ASSIGN_OR_RETURN(array input, as_array(input_e, "\"input\""));
  TP_ASSIGN_OR_RETURN(element target_e, at(input, 0, "\"input\""));
  TP_ASSIGN_OR_RETURN(element name_e, at(input, 1, "\"input\""));
  TP_ASSIGN_OR_RETURN(element args_e, at(input, 2, "\"input\""));
  TP_ASSIGN_OR_RETURN(std::string_view target, as_string(target_e, "the target"));
  TP_RETURN_IF_ERROR(as_string(name_e, "the task name").status());
  TP_RETURN_IF_ERROR(as_array(args_e, "the task arguments").status());
  if (config_e.type() != element_type::OBJECT) return bad("\"config\" is not an object");
  TP_RETURN_IF_ERROR(read_result(result_e, "\"result\"", out, compact));
  out.format = RecordFormat::kAutotvmV02;
  compact.assign_workload(name_e, args_e, out.workload_key);
  out.device = describe(target);
  out.provider.assign("autotvm");
  compact.assign(config_e, out.config);
  std::string_view version;
  if (root["tvm_version"].get_string().get(version) == simdjson::SUCCESS) out.version.assign(version);
  else out.version.clear();
  return Status::Ok();
}

Status parse_i_r_v(const object& root, ParsedRecord& out, const TargetDescriber& describe, Compact& compact) {
  element i_e, r_e, v_e;
  if (root["i"].get(i_e) != simdjson::SUCCESS) return bad("record without \"i\"");
  if (root["r"].get(r_e) != simdjson::SUCCESS) return bad("record with \"i\" but without \"r\"");
  TP_ASSIGN_OR_RETURN(array i, as_array(i_e, "\"i\""));
  TP_ASSIGN_OR_RETURN(element first, at(i, 0, "\"i\""));
  if (first.type() == element_type::ARRAY) {
    // auto_scheduler: "i": [[workload_key, target, ...], [[], steps]]
    array task = first.get_array().value_unsafe();
    TP_ASSIGN_OR_RETURN(element key_e, at(task, 0, "\"i\"[0]"));
    TP_ASSIGN_OR_RETURN(element target_e, at(task, 1, "\"i\"[0]"));
    TP_ASSIGN_OR_RETURN(std::string_view key, as_string(key_e, "the workload key"));
    TP_ASSIGN_OR_RETURN(std::string_view target, as_string(target_e, "the target"));
    TP_ASSIGN_OR_RETURN(element state_e, at(i, 1, "\"i\""));
    TP_RETURN_IF_ERROR(as_array(state_e, "the state (\"i\"[1])").status());
    TP_RETURN_IF_ERROR(read_result(r_e, "\"r\"", out, compact));
    out.format = RecordFormat::kAnsor;
    out.workload_key.assign(key);
    out.device = describe(target);
    out.provider.assign("ansor");
    compact.assign(state_e, out.config);
  } else {
    // AutoTVM v0.1: "i": [target, task_name, args, kwargs, workload, config]
    TP_ASSIGN_OR_RETURN(std::string_view target, as_string(first, "the target"));
    TP_ASSIGN_OR_RETURN(element name_e, at(i, 1, "\"i\""));
    TP_ASSIGN_OR_RETURN(element args_e, at(i, 2, "\"i\""));
    TP_ASSIGN_OR_RETURN(element config_e, at(i, 5, "\"i\""));
    TP_RETURN_IF_ERROR(as_string(name_e, "the task name").status());
    TP_RETURN_IF_ERROR(as_array(args_e, "the task arguments").status());
    if (config_e.type() != element_type::OBJECT) return bad("the config (\"i\"[5]) is not an object");
    TP_RETURN_IF_ERROR(read_result(r_e, "\"r\"", out, compact));
    out.format = RecordFormat::kAutotvmV01;
    compact.assign_workload(name_e, args_e, out.workload_key);
    out.device = describe(target);
    out.provider.assign("autotvm");
    compact.assign(config_e, out.config);
  }
  out.version.clear();
  if (root["v"].get(v_e) == simdjson::SUCCESS) {
    std::string_view s;
    if (v_e.get_string().get(s) == simdjson::SUCCESS) out.version.assign(s);
    else compact.assign(v_e, out.version);
  }
  return Status::Ok();
}

void finish(ParsedRecord& out) {
  content_hash_into({out.line}, out.hash);
  out.config_key = config_key(out.provider, out.config);
}

}  // namespace

std::string_view format_name(RecordFormat f) {
  switch (f) {
    case RecordFormat::kAutotvmV01: return "autotvm-v0.1";
    case RecordFormat::kAutotvmV02: return "autotvm-v0.2";
    case RecordFormat::kAnsor: return "ansor";
    case RecordFormat::kNative: return "native";
  }
  return "unknown";
}

bool plausible_cost(double seconds) { return std::isfinite(seconds) && seconds >= kMinCostS && seconds <= kMaxCostS; }

bool is_skippable_line(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
  return i == line.size() || line[i] == '#';
}

ParsedRecord parsed_from_native(const measure::Record& record) {
  ParsedRecord out;
  out.format = RecordFormat::kNative;
  out.line = measure::record_to_line(record);
  // The columns come from the line as stored, so that a string that was not UTF-8 (written as
  // U+FFFD) reads the same in the columns as in the line and in a re-import of the export.
  Result<measure::Record> stored = measure::record_from_line(out.line);
  const measure::Record& r = stored.ok() ? stored.value() : record;
  out.workload_key = r.workload_key;
  out.device = describe_native_device(r.device_key, r.target);
  out.provider = r.provider;
  out.config = r.config.dump();
  out.error_no = static_cast<int>(r.error);
  if (r.ok()) out.mean_cost = r.mean_cost();
  out.costs = nlohmann::json(r.costs).dump();
  out.build_time_s = r.build_time_s;
  out.timestamp = r.timestamp;
  out.version = r.version;
  finish(out);
  return out;
}

struct LineParser::Impl {
  simdjson::dom::parser parser;
  Compact compact;
  std::string buffer;  // the line plus simdjson's padding
  // Targets repeat from line to line: describe each once.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::unordered_map<std::string, DeviceDescription, Hash, std::equal_to<>> targets;
  const DeviceDescription& describe(std::string_view target) {
    auto it = targets.find(target);
    if (it == targets.end()) {
      if (targets.size() > 4096) targets.clear();
      it = targets.emplace(std::string(target), describe_tvm_target(target)).first;
    }
    return it->second;
  }
};

LineParser::LineParser() : impl_(std::make_unique<Impl>()) {}
LineParser::~LineParser() = default;

Result<ParsedRecord> LineParser::parse(std::string_view line) {
  ParsedRecord out;
  TP_RETURN_IF_ERROR(parse_into(line, out));
  return out;
}

Status LineParser::parse_into(std::string_view line, ParsedRecord& out) {
  if (line.size() > kMaxLineBytes)
    return bad("the line is " + std::to_string(line.size()) + " bytes, longer than the limit of " +
               std::to_string(kMaxLineBytes) + " bytes for a record");
  impl_->buffer.assign(line);
  impl_->buffer.resize(line.size() + simdjson::SIMDJSON_PADDING, '\0');
  element doc;
  if (impl_->parser.parse(impl_->buffer.data(), line.size(), false).get(doc) != simdjson::SUCCESS)
    return bad("not valid JSON");
  object root;
  if (doc.get_object().get(root) != simdjson::SUCCESS) return bad("not a JSON object");
  element input;
  if (root["input"].get(input) == simdjson::SUCCESS && input.type() == element_type::OBJECT) {
    Result<measure::Record> parsed = measure::record_from_line(line);
    if (!parsed.ok()) return bad(parsed.status().message());  // whatever the reader's code: a bad line
    const measure::Record& r = *parsed;
    if (!r.ok() && r.error == measure::ErrorCode::kNoError) return bad("an error-free record has no costs");
    if (r.ok())
      for (double c : r.costs)
        if (!plausible_cost(c)) return implausible(c);
    out = parsed_from_native(r);
    return Status::Ok();
  }
  TargetDescriber describe = [this](std::string_view t) -> const DeviceDescription& { return impl_->describe(t); };
  if (root["input"].error() == simdjson::SUCCESS) {
    TP_RETURN_IF_ERROR(parse_autotvm_v02(root, out, describe, impl_->compact));
  } else if (root["i"].error() == simdjson::SUCCESS) {
    TP_RETURN_IF_ERROR(parse_i_r_v(root, out, describe, impl_->compact));
  } else {
    return bad("not a record: expected \"input\" (AutoTVM v0.2, tensorperf) or \"i\" (AutoTVM v0.1, auto_scheduler)");
  }
  out.line.assign(line);
  finish(out);
  return Status::Ok();
}

}  // namespace tensorperf::db
