#include "runtime/stage_schedule.h"

#include <cstdio>
#include <map>
#include <string_view>

#include "ir/op_kind.h"

#include "base/atomic_file.h"
#include "base/read_file.h"

namespace tensorperf::runtime {

int StageSchedule::num_ops() const {
  int n = 0;
  for (const Stage& st : stages)
    for (const StageGroup& g : st.groups) n += static_cast<int>(g.ops.size());
  return n;
}

nlohmann::json schedule_to_json(const StageSchedule& s) {
  nlohmann::json j = {{"format", kStageScheduleFormat}, {"model", s.model},     {"batch", s.batch},
                      {"device", s.device},             {"threads", s.threads}, {"strategy", s.strategy},
                      {"graph", s.graph},               {"latency_ms", s.latency_ms},
                      {"sequential_ms", s.sequential_ms}};
  nlohmann::json merges = nlohmann::json::array();
  for (const MergeSpec& m : s.merges) merges.push_back({{"name", m.name}, {"ops", m.ops}});
  j["merges"] = merges;
  nlohmann::json stages = nlohmann::json::array();
  for (const Stage& st : s.stages) {
    nlohmann::json groups = nlohmann::json::array();
    for (const StageGroup& g : st.groups) groups.push_back({{"threads", g.threads}, {"ops", g.ops}});
    stages.push_back({{"groups", groups}});
  }
  j["stages"] = stages;
  nlohmann::json configs = nlohmann::json::object();
  for (const auto& [w, c] : s.configs)
    configs[w] = {{"provider", c.config.provider}, {"config", c.config.knobs}, {"source", source_name(c.source)},
                  {"device", c.device}};
  j["configs"] = configs;
  return j;
}

namespace {

Result<std::vector<std::string>> string_list(const nlohmann::json& j, const std::string& where) {
  if (!j.is_array()) return Status::InvalidArgument(where + " must be an array of operator names");
  std::vector<std::string> out;
  for (const nlohmann::json& e : j) {
    if (!e.is_string()) return Status::InvalidArgument(where + " must hold strings");
    out.push_back(e.get<std::string>());
  }
  return out;
}

}  // namespace

Result<StageSchedule> schedule_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return Status::InvalidArgument("a stage schedule is a JSON object");
  if (!j.contains("format") || !j["format"].is_number_integer() || j["format"].get<int>() != kStageScheduleFormat)
    return Status::InvalidArgument("stage schedule: \"format\" must be " + std::to_string(kStageScheduleFormat));
  StageSchedule s;
  auto text = [&](const char* key, std::string& out) -> Status {
    if (!j.contains(key)) return Status::Ok();
    if (!j[key].is_string()) return Status::InvalidArgument(std::string("stage schedule: \"") + key + "\" must be a string");
    out = j[key].get<std::string>();
    return Status::Ok();
  };
  TP_RETURN_IF_ERROR(text("model", s.model));
  TP_RETURN_IF_ERROR(text("device", s.device));
  TP_RETURN_IF_ERROR(text("strategy", s.strategy));
  TP_RETURN_IF_ERROR(text("graph", s.graph));
  if (s.graph.empty()) return Status::InvalidArgument("stage schedule: \"graph\" (the operator fingerprint) is missing");
  for (const char* key : {"batch", "threads"})
    if (j.contains(key) && (!j[key].is_number_integer() || j[key].get<int>() < 1))
      return Status::InvalidArgument(std::string("stage schedule: \"") + key + "\" must be a positive integer");
  s.batch = j.value("batch", 1);
  s.threads = j.value("threads", 1);
  for (const char* key : {"latency_ms", "sequential_ms"})
    if (j.contains(key) && !j[key].is_number()) return Status::InvalidArgument(std::string("stage schedule: \"") + key + "\" must be a number");
  s.latency_ms = j.value("latency_ms", 0.0);
  s.sequential_ms = j.value("sequential_ms", 0.0);
  if (j.contains("merges")) {
    if (!j["merges"].is_array()) return Status::InvalidArgument("stage schedule: \"merges\" must be an array");
    for (size_t i = 0; i < j["merges"].size(); ++i) {
      const nlohmann::json& m = j["merges"][i];
      const std::string where = "stage schedule: merges[" + std::to_string(i) + "]";
      if (!m.is_object() || !m.contains("name") || !m["name"].is_string() || !m.contains("ops"))
        return Status::InvalidArgument(where + " must be {\"name\": ..., \"ops\": [...]}");
      MergeSpec spec;
      spec.name = m["name"].get<std::string>();
      TP_ASSIGN_OR_RETURN(spec.ops, string_list(m["ops"], where + ".ops"));
      if (spec.ops.size() < 2) return Status::InvalidArgument(where + " merges fewer than two operators");
      s.merges.push_back(std::move(spec));
    }
  }
  if (!j.contains("stages") || !j["stages"].is_array())
    return Status::InvalidArgument("stage schedule: \"stages\" must be an array");
  for (size_t i = 0; i < j["stages"].size(); ++i) {
    const nlohmann::json& st = j["stages"][i];
    const std::string where = "stage schedule: stages[" + std::to_string(i) + "]";
    if (!st.is_object() || !st.contains("groups") || !st["groups"].is_array())
      return Status::InvalidArgument(where + " must be {\"groups\": [...]}");
    Stage stage;
    for (size_t k = 0; k < st["groups"].size(); ++k) {
      const nlohmann::json& g = st["groups"][k];
      const std::string gw = where + ".groups[" + std::to_string(k) + "]";
      if (!g.is_object() || !g.contains("ops")) return Status::InvalidArgument(gw + " must be {\"threads\": T, \"ops\": [...]}");
      StageGroup group;
      if (g.contains("threads") && (!g["threads"].is_number_integer() || g["threads"].get<int>() < 1))
        return Status::InvalidArgument(gw + ".threads must be a positive integer");
      group.threads = g.value("threads", 1);
      TP_ASSIGN_OR_RETURN(group.ops, string_list(g["ops"], gw + ".ops"));
      stage.groups.push_back(std::move(group));
    }
    s.stages.push_back(std::move(stage));
  }
  if (j.contains("configs")) {
    if (!j["configs"].is_object()) return Status::InvalidArgument("stage schedule: \"configs\" must be an object");
    for (const auto& [w, c] : j["configs"].items()) {
      const std::string where = "stage schedule: configs[\"" + w + "\"]";
      if (!c.is_object() || !c.contains("provider") || !c["provider"].is_string() || !c.contains("config") ||
          !c["config"].is_object())
        return Status::InvalidArgument(where + " must be {\"provider\": ..., \"config\": {...}}");
      ChosenConfig chosen;
      chosen.config.provider = c["provider"].get<std::string>();
      chosen.config.knobs = c["config"];
      if (c.contains("source") && c["source"].is_string()) {
        Result<ConfigSource> src = parse_source(c["source"].get<std::string>());
        if (!src.ok()) return Status::InvalidArgument(where + ": " + src.status().message());
        chosen.source = *src;
      }
      if (c.contains("device") && c["device"].is_string()) chosen.device = c["device"].get<std::string>();
      s.configs[w] = std::move(chosen);
    }
  }
  return s;
}

Result<StageSchedule> read_schedule_file(const std::string& path) {
  TP_ASSIGN_OR_RETURN(std::string text, read_file(path));
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument(path + ": not JSON");
  Result<StageSchedule> s = schedule_from_json(j);
  if (!s.ok()) return Status::InvalidArgument(path + ": " + s.status().message());
  return s;
}

Status write_schedule_file(const std::string& path, const StageSchedule& s) {
  TP_ASSIGN_OR_RETURN(AtomicFile f, AtomicFile::create(path));
  f.stream() << schedule_to_json(s).dump(1) << "\n";
  return f.commit();
}

std::string graph_fingerprint(const ir::Graph& g) {
  // FNV-1a, 64 bits: stable across runs and builds.
  uint64_t h = 1469598103934665603ull;
  auto eat = [&](std::string_view s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
  };
  auto type = [&](ir::ValueId v) { eat(g.value(v).type ? g.value(v).type->to_string() : "?"); };
  for (ir::ValueId v : g.inputs()) type(v);
  for (const ir::Node& n : g.nodes()) {
    eat(n.name);
    eat(ir::op_name(n.op));
    eat(n.attrs.to_string());
    for (ir::ValueId v : n.inputs) type(v);
    for (ir::ValueId v : n.outputs) type(v);
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "%zu-%016llx", g.nodes().size(), static_cast<unsigned long long>(h));
  return buf;
}

Status validate_schedule(const StageSchedule& s, const std::vector<std::string>& names,
                         const std::vector<std::vector<int>>& preds, int threads) {
  std::map<std::string, int> index;
  for (size_t i = 0; i < names.size(); ++i) index[names[i]] = static_cast<int>(i);
  // Where each operator runs: (stage, group, position).
  struct At {
    int stage = -1, group = -1, pos = -1;
  };
  std::vector<At> at(names.size());
  for (size_t si = 0; si < s.stages.size(); ++si) {
    const Stage& st = s.stages[si];
    if (st.groups.empty()) return Status::InvalidArgument("stage " + std::to_string(si) + " has no groups");
    int used = 0;
    for (size_t gi = 0; gi < st.groups.size(); ++gi) {
      const StageGroup& g = st.groups[gi];
      if (g.ops.empty())
        return Status::InvalidArgument("stage " + std::to_string(si) + " group " + std::to_string(gi) + " has no operators");
      if (g.threads < 1) return Status::InvalidArgument("stage " + std::to_string(si) + " has a group of no threads");
      used += g.threads;
      for (size_t p = 0; p < g.ops.size(); ++p) {
        auto it = index.find(g.ops[p]);
        if (it == index.end())
          return Status::InvalidArgument("the schedule names operator '" + g.ops[p] +
                                         "', which this graph does not have (a schedule made for another model or batch?)");
        if (at[it->second].stage >= 0)
          return Status::InvalidArgument("the schedule runs operator '" + g.ops[p] + "' twice");
        at[it->second] = {static_cast<int>(si), static_cast<int>(gi), static_cast<int>(p)};
      }
    }
    if (used > threads)
      return Status::InvalidArgument("stage " + std::to_string(si) + " uses " + std::to_string(used) +
                                     " threads; the run has " + std::to_string(threads));
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (at[i].stage < 0) return Status::InvalidArgument("the schedule does not run operator '" + names[i] + "'");
    for (int p : preds[i]) {
      const At& a = at[p];
      const bool before = a.stage < at[i].stage || (a.stage == at[i].stage && a.group == at[i].group && a.pos < at[i].pos);
      if (!before)
        return Status::InvalidArgument("the schedule runs operator '" + names[i] + "' before or beside its input '" +
                                       names[p] + "'");
    }
  }
  return Status::Ok();
}

StageSchedule sequential_schedule(const std::vector<std::string>& names, int threads) {
  StageSchedule s;
  s.threads = threads;
  s.strategy = "sequential";
  for (const std::string& n : names) s.stages.push_back(Stage{{StageGroup{threads, {n}}}});
  return s;
}

}  // namespace tensorperf::runtime
