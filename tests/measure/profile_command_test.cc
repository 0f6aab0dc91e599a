// End to end: `tensorperf profile` on SqueezeNet 1.1 with two configs per task writes records for
// every workload `tensorperf tasks` lists, and a second run measures nothing new.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "measure/record_sink.h"

namespace tensorperf::measure {
namespace {

namespace fs = std::filesystem;

// Runs a shell command; returns its exit status and stdout.
std::pair<int, std::string> run(const std::string& cmd) {
  std::FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof(buf), p)) > 0;) out.append(buf, n);
  int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

TEST(ProfileCommand, SqueezeNetGetsRecordsForEveryWorkloadAndResumes) {
  const std::string bin = std::string(TENSORPERF_BINARY_DIR) + "/tensorperf";
  const fs::path dir = fs::temp_directory_path() / ("tp-profile-e2e-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string out = (dir / "records.jsonl").string();
  // Peaks are cached per device; a private cache keeps the test independent of the user's.
  const std::string env = "XDG_CACHE_HOME=" + (dir / "cache").string() + " ";

  auto [tasks_rc, tasks_out] = run(bin + " tasks --model squeezenet1_1 --json");
  ASSERT_EQ(tasks_rc, 0) << tasks_out;
  std::set<std::string> workloads;
  const nlohmann::json listed = nlohmann::json::parse(tasks_out);
  for (const auto& t : listed["tasks"]) workloads.insert(t["key"].get<std::string>());
  ASSERT_GT(workloads.size(), 10u);

  const std::string profile = env + bin + " profile --model squeezenet1_1 --configs-per-task 2 --threads 1" +
                              " --min-repeat-ms 1 --repeat 2 --json --out " + out + " 2>" + (dir / "stderr").string();
  auto [rc, summary_text] = run(profile);
  ASSERT_EQ(rc, 0) << summary_text;
  auto summary = nlohmann::json::parse(summary_text);
  EXPECT_GT(summary["measured"].get<int>(), 0);
  EXPECT_EQ(summary["skipped"].get<int>(), 0);
  EXPECT_TRUE(summary["unsupported"].empty()) << summary["unsupported"].dump();

  auto file = read_record_file(out);
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->bad_lines, 0);
  EXPECT_EQ(static_cast<int>(file->records.size()), summary["measured"].get<int>());
  std::map<std::string, int> ok_per_workload;
  for (const auto& r : file->records) {
    EXPECT_TRUE(workloads.count(r.workload_key)) << r.workload_key;
    ok_per_workload[r.workload_key] += r.ok() ? 1 : 0;
  }
  for (const auto& w : workloads) {
    ASSERT_TRUE(ok_per_workload.count(w)) << "no record for " << w;
    EXPECT_GT(ok_per_workload[w], 0) << "no successful config for " << w;  // the default config works
  }

  auto [rc2, again_text] = run(profile);
  ASSERT_EQ(rc2, 0) << again_text;
  auto again = nlohmann::json::parse(again_text);
  EXPECT_EQ(again["measured"].get<int>(), 0);
  EXPECT_EQ(again["skipped"].get<int>(), summary["measured"].get<int>());

  // --configs-of: the configs a run ran (its ops; a layout copy names no workload), and nothing else.
  const Record* picked = nullptr;
  for (const auto& r : file->records)
    if (r.ok() && r.provider == "onednn" && r.config != nlohmann::json::object()) picked = &r;
  ASSERT_NE(picked, nullptr);
  nlohmann::json run_json = {{"ops", nlohmann::json::array({
      {{"workload", ""}, {"provider", ""}, {"config", nlohmann::json::object()}},
      {{"workload", picked->workload_key}, {"provider", picked->provider}, {"config", picked->config}},
      {{"workload", picked->workload_key}, {"provider", picked->provider}, {"config", picked->config}}})}};
  const std::string run_file = (dir / "run.json").string();
  std::ofstream(run_file) << run_json.dump();
  const std::string chosen_out = (dir / "chosen.jsonl").string();
  auto [rc3, chosen_text] = run(env + bin + " profile --model squeezenet1_1 --threads 1 --min-repeat-ms 1 --repeat 2 " +
                                "--json --configs-of " + run_file + " --out " + chosen_out + " 2>/dev/null");
  ASSERT_EQ(rc3, 0) << chosen_text;
  EXPECT_EQ(nlohmann::json::parse(chosen_text)["measured"].get<int>(), 1);
  auto chosen = read_record_file(chosen_out);
  ASSERT_TRUE(chosen.ok());
  ASSERT_EQ(chosen->records.size(), 1u);
  EXPECT_EQ(chosen->records[0].workload_key, picked->workload_key);
  EXPECT_EQ(chosen->records[0].config, picked->config);
  // A file that is no run's output is a usage error that says so.
  std::ofstream(run_file) << "{\"model\": \"x\"}";
  auto [rc4, bad_text] = run(env + bin + " profile --model squeezenet1_1 --configs-of " + run_file + " --out " +
                             chosen_out + " 2>&1");
  EXPECT_EQ(rc4, 2) << bad_text;
  EXPECT_NE(bad_text.find("not the output of `tensorperf run --json`"), std::string::npos) << bad_text;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tensorperf::measure
