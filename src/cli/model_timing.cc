#include "cli/model_timing.h"

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <memory>

#include <algorithm>
#include <chrono>
#include <vector>

#include <fmt/format.h>

#include "cli/exit.h"

namespace tensorperf::cli {

Latency time_runs(runtime::Executor& ex, int repeat) {
  std::vector<double> runs;
  for (int r = 0; r < std::max(repeat, 1); ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    check(ex.run());
    runs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(runs.begin(), runs.end());
  Latency l;
  l.p50_s = runs[runs.size() / 2];
  l.p90_s = runs[std::min(runs.size() - 1, static_cast<size_t>(0.9 * static_cast<double>(runs.size() - 1) + 0.5))];
  l.min_s = runs.front();
  return l;
}

std::string Coverage::line() const {
  std::string s = fmt::format("{} of {} workloads tuned on this device", tuned, tuned + closest + defaults);
  for (const auto& [dev, n] : closest_devices) s += fmt::format(", {} from {}", n, dev);
  return s + fmt::format(", {} default", defaults);
}

Coverage coverage_of(const runtime::Executor& ex) {
  std::map<std::string, const runtime::StepInfo*> workloads;
  for (const runtime::StepInfo& s : ex.steps())
    if (!s.workload.empty()) workloads.emplace(s.workload, &s);
  Coverage c;
  for (const auto& [key, s] : workloads) {
    if (s->source == runtime::ConfigSource::kTuned) ++c.tuned;
    else if (s->source == runtime::ConfigSource::kClosestDevice) ++c.closest, ++c.closest_devices[s->device];
    else ++c.defaults;
  }
  return c;
}

namespace {

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

nlohmann::json run_in_child(const ModelSource& m, const ChildRun& o, const std::string& what) {
  // This executable's own path (the shell popen starts would read /proc/self/exe as itself).
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw CommandFailed("cannot find this executable (/proc/self/exe): " + ec.message());
  std::string cmd = quoted(self.string()) + " run";
  if (!m.model.empty()) cmd += " --model " + quoted(m.model);
  else cmd += " --onnx " + quoted(m.onnx);
  cmd += fmt::format(" --batch {} --seq-len {} --graph-seed {}", m.batch, m.seq_len, m.seed);
  if (m.image_size > 0) cmd += fmt::format(" --image-size {}", m.image_size);
  if (o.threads > 0) cmd += fmt::format(" --threads {}", o.threads);
  cmd += " --isa " + quoted(o.isa);
  if (!o.db.empty()) cmd += " --db " + quoted(o.db);
  cmd += fmt::format(" --repeat {} --json", o.repeat);
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  if (!pipe) throw CommandFailed("cannot start `tensorperf run` for " + what);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe.get())) > 0) out.append(buf, n);
  const int status = pclose(pipe.release());
  if (status != 0) {
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : kExitFailure;
    throw CommandFailed(what + " failed (see the error above)", code == 0 ? kExitFailure : code);
  }
  try {
    return nlohmann::json::parse(out);
  } catch (const nlohmann::json::exception& e) {
    throw CommandFailed(what + " printed no JSON: " + std::string(e.what()));
  }
}

}  // namespace tensorperf::cli
