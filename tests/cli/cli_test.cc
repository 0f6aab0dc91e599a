// End-to-end tests of the `tensorperf` executable: output formats, exit codes, one-line errors.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <unistd.h>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "costmodel/weight_stream.h"
#include "ir/workload.h"
#include "runtime/tensor_file.h"

namespace {

struct CmdResult {
  int exit_code;
  std::string out;
  std::string err;
};

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

CmdResult tensorperf_with_prefix(const std::string& prefix, const std::string& args) {
  auto dir = std::filesystem::temp_directory_path();
  std::string out = (dir / ("tp_cli_out_" + std::to_string(::getpid()))).string();
  std::string err = out + ".err";
  std::string cmd = prefix + std::string(TENSORPERF_EXE) + " " + args + " >" + out + " 2>" + err;
  int status = std::system(cmd.c_str());
  CmdResult r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

CmdResult tensorperf(const std::string& args) { return tensorperf_with_prefix("", args); }

// As tensorperf(), with `env` (an `env` command line: "-u NAME", "NAME=VALUE") before the program.
CmdResult tensorperf_env(const std::string& env, const std::string& args) {
  return tensorperf_with_prefix("env " + env + " ", args);
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// For commands whose progress lines may precede an error found late: the number of error lines, which
// must also be the last line.
int error_lines(const std::string& s) {
  std::istringstream in(s);
  int n = 0;
  std::string line, last;
  for (; std::getline(in, line); last = line) n += line.find("error:") != std::string::npos;
  return last.find("error:") != std::string::npos ? n : -1;
}

class BadOnnx : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(
        (std::filesystem::temp_directory_path() / ("tp_bad_onnx_" + std::to_string(::getpid()))).string());
    std::string cmd = std::string("/usr/bin/python3 ") + TENSORPERF_SOURCE_DIR + "/tests/cli/make_bad_onnx.py " + *dir_;
    ASSERT_EQ(std::system(cmd.c_str()), 0) << "fixture script failed: " << cmd;
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
  }
  static std::string file(const char* name) { return *dir_ + "/" + name; }
  static std::string* dir_;
};
std::string* BadOnnx::dir_ = nullptr;

TEST(Cli, ModelsListsTheZoo) {
  CmdResult r = tensorperf("models --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  std::vector<std::string> names;
  for (const auto& m : j) names.push_back(m["name"]);
  for (const char* want : {"resnet18", "resnet50", "vgg16", "inception_v3", "squeezenet1_1", "mobilenet_v2"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
}

TEST(Cli, TasksJsonIsOneObjectWithTheDocumentedFields) {
  CmdResult r = tensorperf("tasks --model resnet18 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);  // throws (fails) unless stdout is exactly one JSON value
  EXPECT_EQ(j["model"], "resnet18");
  EXPECT_EQ(j["batch"], 1);
  double sum = 0, conv_dense = 0;
  for (const auto& t : j["tasks"]) {
    ASSERT_TRUE(t["key"].is_string() && t["op"].is_string() && t["count"].is_number_integer() &&
                t["flops"].is_number());
    sum += t["count"].get<double>() * t["flops"].get<double>();
    if (t["op"] == "conv2d" || t["op"] == "dense") conv_dense += t["count"].get<double>() * t["flops"].get<double>();
  }
  EXPECT_NEAR(sum, j["total_flops"].get<double>(), 1e-6 * sum);
  EXPECT_NEAR(conv_dense / 2, 1.814e9, 0.01 * 1.814e9);  // torchvision: 1.814 GMAC
}

TEST(Cli, TasksTableAndBatch) {
  CmdResult r = tensorperf("tasks --model resnet18 --batch 4");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("conv2d|float32[4,64,56,56]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("total"), std::string::npos);
}

TEST(Cli, GraphDot) {
  CmdResult r = tensorperf("graph --model squeezenet1_1 --dot");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("digraph", 0), 0u);
  EXPECT_NE(r.out.find("concat"), std::string::npos);
  EXPECT_EQ(r.out.back(), '\n');
}

TEST(Cli, UsageErrors) {
  CmdResult none = tensorperf("");
  EXPECT_NE(none.exit_code, 0);
  CmdResult both = tensorperf("tasks --model resnet18 --onnx x.onnx");
  EXPECT_NE(both.exit_code, 0);
  CmdResult neither = tensorperf("tasks");
  EXPECT_NE(neither.exit_code, 0);
  EXPECT_NE(neither.err.find("--model"), std::string::npos) << neither.err;
  CmdResult unknown = tensorperf("tasks --model resnet1000");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(lines(unknown.err), 1) << unknown.err;
  EXPECT_NE(unknown.err.find("resnet18"), std::string::npos) << "should list the known models: " << unknown.err;
  CmdResult help = tensorperf("tasks --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--json"), std::string::npos);
}

TEST_F(BadOnnx, GoodFileImports) {
  CmdResult r = tensorperf("tasks --onnx " + file("ok.onnx") + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["tasks"].size(), 1u);
  EXPECT_EQ(j["tasks"][0]["op"], "conv2d");
}

TEST_F(BadOnnx, BatchDefaultsToTheFilesAndCanBeOverridden) {
  auto batch_of = [](const CmdResult& r) { return nlohmann::json::parse(r.out)["batch"].get<int>(); };
  CmdResult own = tensorperf("tasks --onnx " + file("ok.onnx") + " --json");
  ASSERT_EQ(own.exit_code, 0) << own.err;
  EXPECT_EQ(batch_of(own), 1);
  CmdResult four = tensorperf("tasks --onnx " + file("ok.onnx") + " --batch 4 --json");
  ASSERT_EQ(four.exit_code, 0) << four.err;
  EXPECT_EQ(batch_of(four), 4);
}

TEST_F(BadOnnx, EachBadInputIsOneLineAndNonZero) {
  struct Case {
    std::string path;
    std::vector<std::string> mentions;
  };
  std::vector<Case> cases = {
      {file("missing.onnx"), {"missing.onnx"}},
      {file("garbage.onnx"), {"garbage.onnx"}},
      {file("truncated.onnx"), {"truncated.onnx"}},
      {file("unsupported_op.onnx"), {"weird_hardmax", "Hardmax", "13"}},
      {file("cyclic.onnx"), {"cycle"}},
      {file("huge_input.onnx"), {"2147483647"}},
      {file("huge_pads.onnx"), {"pads"}},
  };
  for (const auto& c : cases) {
    CmdResult r = tensorperf("tasks --onnx " + c.path);
    EXPECT_NE(r.exit_code, 0) << c.path;
    EXPECT_EQ(lines(r.err), 1) << c.path << ": " << r.err;
    EXPECT_EQ(r.err.rfind("tensorperf: error: ", 0), 0u) << r.err;
    for (const auto& m : c.mentions) EXPECT_NE(r.err.find(m), std::string::npos) << c.path << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

// Profiling a huge input never allocates it: an error before anything is measured or written.
TEST_F(BadOnnx, HugeSizesAreOneLineErrorsInEveryCommand) {
  for (const std::string& args :
       {"profile --onnx " + file("huge_input.onnx") + " --out " + file("x.jsonl"),
        std::string("profile --model resnet18 --batch 1048576 --image-size 65536 --out ") + file("y.jsonl"),
        std::string("tasks --model resnet18 --batch 4611686018427387904"),
        std::string("tune --workload 'relu|float32[4294967296,4294967296]||' --db ") + file("z.db")}) {
    CmdResult r = tensorperf(args);
    EXPECT_NE(r.exit_code, 0) << args;
    EXPECT_LT(r.exit_code, 3) << args << " (crashed?) " << r.err;
    EXPECT_EQ(lines(r.err), 1) << args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("tensorperf: error: ", 0), 0u) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(file("x.jsonl")));
  EXPECT_FALSE(std::filesystem::exists(file("z.db")));
}

TEST(Cli, CommandLineErrorsAreOneLineWithThePrefixAndExitTwo) {
  struct Case {
    std::string args, mentions;
  };
  for (const Case& c : std::vector<Case>{
           {"bogus", "unknown command 'bogus'"},
           {"tasks --model resnet18 --no-such-flag", "--no-such-flag"},
           {"profile --model resnet18 --configs-per-task 0 --out x.jsonl", "greater than 0"},
           {"tune --model resnet18 --seed 18446744073709551616", "18446744073709551615"},
           {"tasks --model resnet18 --batch 0", "from 1 to"},
           {"db best --db x.db -k 0", "greater than 0"},
       }) {
    CmdResult r = tensorperf(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1) << c.args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("tensorperf: error: ", 0), 0u) << c.args << ": " << r.err;
    EXPECT_LT(r.err.size(), 300u) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(c.mentions), std::string::npos) << c.args << ": " << r.err;
  }
}

class DbFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("tp_cli_db_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    std::filesystem::permissions(dir_, std::filesystem::perms::all & ~std::filesystem::perms::others_write &
                                           ~std::filesystem::perms::group_write);
    db_ = (dir_ / "store.db").string();
    std::ofstream log(dir_ / "records.log");
    for (int i = 1; i <= 5; ++i)
      log << R"({"input": ["llvm -mcpu=skylake", "dense.x86", [["TENSOR", [1, )" << i
          << R"(], "float32"]], {}], "config": {"index": 1, "code_hash": null, "entity": []}, "result": [[0.00)" << i
          << R"(], 0, 1.0, 1600000000.5], "version": 0.2, "tvm_version": "0.7.dev0"})"
          << "\n";
    log.close();
    ASSERT_EQ(tensorperf("db import --db " + db_ + " " + (dir_ / "records.log").string()).exit_code, 0);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const char* name) const { return (dir_ / name).string(); }
  int64_t records() {
    CmdResult r = tensorperf("db stats --json --db " + db_);
    return r.exit_code == 0 ? nlohmann::json::parse(r.out)["records"].get<int64_t>() : -1;
  }
  std::filesystem::path dir_;
  std::string db_;
};

TEST_F(DbFiles, AnExportNeverOverwritesTheStoreOrTruncatesItsOutput) {
  for (const std::string& out : {db_, db_ + "-wal", db_ + "-shm"}) {
    CmdResult r = tensorperf("db export --all -o " + out + " --db " + db_);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("database itself"), std::string::npos) << r.err;
  }
  EXPECT_EQ(records(), 5);
  // A failed export leaves an existing output as it was: a store whose chunks are damaged fails.
  std::filesystem::copy_file(db_, path("damaged.db"));
  ASSERT_EQ(std::system(("sqlite3 " + path("damaged.db") + " \"UPDATE record_chunks SET data = X'00112233'\"").c_str()),
            0);
  {
    std::ofstream old(path("out.log"));
    old << "previous export\n";
  }
  CmdResult failed = tensorperf("db export --all -o " + path("out.log") + " --db " + path("damaged.db"));
  EXPECT_NE(failed.exit_code, 0);
  EXPECT_EQ(slurp(path("out.log")), "previous export\n");
  CmdResult good = tensorperf("db export --all -o " + path("out.log") + " --db " + db_);
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_EQ(lines(slurp(path("out.log"))), 5);
  for (const auto& f : std::filesystem::directory_iterator(dir_))
    EXPECT_EQ(f.path().string().find(".tmp-"), std::string::npos) << "left behind: " << f.path();
}

TEST_F(DbFiles, ReadCommandsWorkOnAReadOnlyStore) {
  std::filesystem::permissions(db_, std::filesystem::perms::owner_read | std::filesystem::perms::group_read |
                                        std::filesystem::perms::others_read);
  // As root every file is writable: read it as an unprivileged user instead, who can write neither
  // the file nor the directory (where SQLite would put its -shm file).
  const std::string as = ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  for (const char* cmd :
       {"db stats", "db devices", "db workloads", "db export --all",
        "db best --json --workload '[\"dense.x86\",[\"TENSOR\",[1,3],\"float32\"]]' --device 'llvm -mcpu=skylake'"}) {
    const std::string line =
        as + TENSORPERF_EXE + " " + std::string(cmd) + " --db " + db_ + " >" + path("ro.out") + " 2>" + path("ro.err");
    int status = std::system(line.c_str());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << cmd << ": " << slurp(path("ro.err"));
  }
  EXPECT_EQ(nlohmann::json::parse(slurp(path("ro.out")))["records"].size(), 1u);  // db best: that workload's record
}

TEST_F(DbFiles, AFileWhoseEveryLineIsMalformedFailsTheImport) {
  {
    std::ofstream bad(path("bad.log"));
    bad << "not json\n{\"also\": \"not a record\"}\n";
  }
  CmdResult r = tensorperf("db import --db " + db_ + " " + path("bad.log"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no record"), std::string::npos) << r.err;
}

}  // namespace

namespace {

TEST_F(BadOnnx, RunPrintsTheDocumentedJsonAndWritesTheOutput) {
  const std::string out = file("run_out.npy");
  CmdResult r =
      tensorperf("run --onnx " + file("ok.onnx") + " --configs onednn --repeat 3 --threads 1 --json --output " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  for (const char* key :
       {"model", "batch", "threads", "device", "latency_ms", "peak_activation_bytes", "coverage", "ops"})
    EXPECT_TRUE(j.contains(key)) << key;
  for (const char* key : {"p50", "p90", "min"}) EXPECT_GT(j["latency_ms"][key].get<double>(), 0) << key;
  EXPECT_LE(j["latency_ms"]["min"].get<double>(), j["latency_ms"]["p50"].get<double>());
  EXPECT_EQ(j["coverage"]["default"].get<int>(), 1);
  EXPECT_EQ(j["coverage"]["tuned"].get<int>(), 0);
  ASSERT_EQ(j["ops"].size(), 1u);
  EXPECT_EQ(j["ops"][0]["provider"], "onednn");
  EXPECT_EQ(j["ops"][0]["source"], "default");
  ASSERT_TRUE(std::filesystem::exists(out));
  const std::string check =
      "/usr/bin/python3 -c \"import numpy as np; a = np.load('" + out +
      "'); assert a.dtype == np.float32 and a.ndim == 4 and np.isfinite(a).all() and abs(a).max() > 0\"";
  EXPECT_EQ(std::system(check.c_str()), 0);
}

TEST_F(BadOnnx, RunRefusesBadInputsWithOneLineAndWritesNothing) {
  tensorperf::ir::TensorData wrong;
  wrong.type = tensorperf::ir::TensorType{{1, 3, 4, 4}, tensorperf::ir::DType::kFloat32};
  wrong.bytes.resize(wrong.type.num_bytes());
  ASSERT_TRUE(tensorperf::runtime::write_tensor_file(file("wrong.npy"), wrong).ok());
  const std::string out = file("never.npy");
  struct Case {
    std::string args;
    std::vector<std::string> mentions;
  };
  const std::vector<Case> cases = {
      {"--input " + file("wrong.npy"), {"'x'", "float32[1,3,4,4]", "float32[1,3,8,8]"}},
      {"--input y=" + file("wrong.npy"), {"no input 'y'"}},
      {"--input " + file("absent.npy"), {"absent.npy"}},
      {"--configs fastest", {"fastest"}},
      {"--db " + file("no_such.db"), {"no_such.db"}},
  };
  for (const Case& c : cases) {
    CmdResult r =
        tensorperf("run --onnx " + file("ok.onnx") + " --repeat 1 --threads 1 --output " + out + " " + c.args);
    EXPECT_NE(r.exit_code, 0) << c.args;
    EXPECT_LE(r.exit_code, 3) << c.args << " (crashed?) " << r.err;
    EXPECT_EQ(lines(r.err), 1) << c.args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("tensorperf: error: ", 0), 0u) << r.err;
    for (const auto& m : c.mentions) EXPECT_NE(r.err.find(m), std::string::npos) << c.args << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << c.args;
  }
  CmdResult unsupported = tensorperf("run --onnx " + file("unsupported_op.onnx") + " --output " + out);
  EXPECT_EQ(unsupported.exit_code, 3);  // a valid model that uses what tensorperf does not support
  EXPECT_NE(unsupported.err.find("Hardmax"), std::string::npos) << unsupported.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// optimize: a run before, a short tune into the database, a run after; both runs' JSON objects and
// what the tune measured. A bad budget is a usage error before anything runs.
TEST(Cli, OptimizeRunsTunesAndRunsAgain) {
  const std::string db =
      (std::filesystem::temp_directory_path() / ("tp_optimize_" + std::to_string(::getpid()) + ".db")).string();
  CmdResult r = tensorperf(
      "optimize --model squeezenet1_1 --image-size 64 --time-budget 3s --repeat 3 --threads 1 --db " + db + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["model"], "squeezenet1_1");
  EXPECT_GT(j["tuning"]["measured"].get<int>(), 0);
  for (const char* phase : {"before", "after"}) {
    EXPECT_GT(j[phase]["latency_ms"]["p50"].get<double>(), 0) << phase;
    const auto& c = j[phase]["coverage"];
    EXPECT_EQ(c["tuned"].get<int>() + c["closest_device"].get<int>() + c["default"].get<int>(), 22) << phase;
  }
  EXPECT_EQ(j["before"]["coverage"]["tuned"], 0);  // a new database
  EXPECT_GT(j["speedup"].get<double>(), 0);
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
  CmdResult bad = tensorperf("optimize --model squeezenet1_1 --time-budget soon --db " + db);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(lines(bad.err), 1) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(db)) << "a usage error wrote the database";
}

TEST(Cli, ScheduleSearchesWritesAScheduleThatRunRuns) {
  const auto dir = std::filesystem::temp_directory_path() / ("tp_schedule_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string db = (dir / "s.db").string(), file = (dir / "s.json").string();
  const std::string model = "--model squeezenet1_1 --image-size 64 --threads 2 --configs onednn --db " + db;
  CmdResult r = tensorperf("schedule " + model + " --strategy both --repeat 5 -o " + file + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  for (const char* key :
       {"search_s", "latency_ms", "sequential_ms", "speedup", "estimated_ms", "sequential_estimated_ms"})
    EXPECT_GT(j[key].get<double>(), 0) << key;
  EXPECT_GT(j["stages_measured"].get<int>(), 0);
  EXPECT_LT(j["max_output_difference"].get<double>(), 1e-4);
  // On 2 threads a stage holds at most 2 groups: the default budget has nothing to deepen.
  EXPECT_EQ(j["search_lanes"], 2);
  EXPECT_EQ(j["search_budget_cut"], false);
  // "stages" counts the found schedule's stages; "schedule" is the one written, which the judge may
  // have taken from another candidate.
  EXPECT_EQ(j["schedule"]["stages"].size(), j["chosen_stages"].get<size_t>());
  if (j["chosen"] == "found") {
    EXPECT_EQ(j["chosen_stages"], j["stages"]);
  }
  if (j["chosen"] == "sequential") {
    EXPECT_EQ(j["chosen_stages"], j["operators"]);
  }
  EXPECT_TRUE(std::filesystem::exists(file));
  // The whole model judged the sequential, the found, greedy's, merge's, parallel's and the
  // predicted-cost search's schedules; the file holds the
  // sequential one unless another won by 3% (median per-round ratio) in 4 of 5 rounds, and then the
  // lowest ratio of those that did.
  for (const char* name : {"sequential", "found", "greedy", "merge", "parallel", "predicted"})
    EXPECT_TRUE(j["candidates_ms"].contains(name)) << name << ": " << j["candidates_ms"].dump();
  ASSERT_EQ(j["candidates_ms"].size(), 6u) << j["candidates_ms"].dump();
  ASSERT_EQ(j["candidates_relative"].size(), 6u) << j["candidates_relative"].dump();
  ASSERT_EQ(j["candidates_wins"].size(), 6u) << j["candidates_wins"].dump();
  EXPECT_EQ(j["rounds"], 5);
  EXPECT_EQ(j["candidates_relative"]["sequential"].get<double>(), 1.0);
  std::string expected = "sequential";
  double lowest = 1.0;
  for (const auto& [name, r] : j["candidates_relative"].items())
    if (r.get<double>() <= 0.97 && j["candidates_wins"][name].get<int>() >= 4 && r.get<double>() < lowest) {
      lowest = r.get<double>();
      expected = name;
    }
  // That pick is written only if it beat sequential clearly again, alone against it, in the
  // confirmation rounds.
  EXPECT_EQ(j["picked"], expected) << j.dump();
  if (expected == "sequential") {
    EXPECT_EQ(j["confirm_rounds"], 0);
    EXPECT_EQ(j["written"], "sequential") << j.dump();
  } else {
    EXPECT_EQ(j["confirm_rounds"], 5);
    const bool confirmed = j["confirm_relative"].get<double>() <= 0.97 && j["confirm_wins"].get<int>() >= 4;
    EXPECT_EQ(j["written"], confirmed ? expected : "sequential") << j.dump();
  }
  EXPECT_EQ(j["chosen"], j["written"]);
  EXPECT_EQ(j["candidates_ms"]["found"].get<double>(), j["latency_ms"].get<double>());
  // A second search of the same kernels finds every stage in the database.
  CmdResult again = tensorperf("schedule " + model + " --strategy both --repeat 5 --json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["stages_measured"], 0);
  CmdResult run =
      tensorperf("run --model squeezenet1_1 --image-size 64 --db " + db + " --repeat 3 --schedule " + file + " --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_GT(nlohmann::json::parse(run.out)["latency_ms"]["p50"].get<double>(), 0);
  // Another graph (another image size) refuses the file in one line.
  CmdResult other =
      tensorperf("run --model squeezenet1_1 --image-size 96 --threads 2 --db " + db + " --schedule " + file);
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_EQ(lines(other.err), 1) << other.err;
  EXPECT_NE(other.err.find("another graph"), std::string::npos) << other.err;
  for (const char* bad_args : {" --strategy fastest", " --search-budget -1", " --search-budget soon"}) {
    CmdResult bad = tensorperf("schedule " + model + bad_args);
    EXPECT_EQ(bad.exit_code, 2) << bad_args;
    EXPECT_EQ(lines(bad.err), 1) << bad_args << ": " << bad.err;
  }
  std::filesystem::remove_all(dir);
}

// `schedule` and `run --schedule` execute themselves again with libgomp's active wait policy
// (runtime/omp_wait_policy.h), unless the user set the policy or turned it off; a plain `run` does not.
TEST(Cli, StageScheduleCommandsRunWithTheActiveWaitPolicy) {
  const auto dir = std::filesystem::temp_directory_path() / ("tp_wait_policy_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string db = (dir / "w.db").string(), file = (dir / "w.json").string();
  const std::string model = "--model squeezenet1_1 --image-size 32 --threads 2 --configs onednn --db " + db;
  const std::string clean = "-u OMP_WAIT_POLICY -u GOMP_SPINCOUNT -u TENSORPERF_OMP_WAIT_POLICY";
  CmdResult s = tensorperf_env(clean, "schedule " + model + " --strategy sequential --repeat 3 -o " + file + " --json");
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_EQ(nlohmann::json::parse(s.out)["omp_wait_policy"], "active");
  auto policy = [&](const std::string& env, const std::string& extra) -> std::string {
    CmdResult r = tensorperf_env(clean + " " + env, "run " + model + " --repeat 3 --json" + extra);
    EXPECT_EQ(r.exit_code, 0) << env << extra << ": " << r.err;
    return r.exit_code == 0 ? nlohmann::json::parse(r.out)["omp_wait_policy"].get<std::string>() : "";
  };
  EXPECT_EQ(policy("", " --schedule " + file), "active");
  EXPECT_EQ(policy("", " --schedule=" + file), "active");
  EXPECT_EQ(policy("TENSORPERF_OMP_WAIT_POLICY=default", " --schedule " + file), "off");
  EXPECT_EQ(policy("OMP_WAIT_POLICY=passive", " --schedule " + file), "user");
  EXPECT_EQ(policy("GOMP_SPINCOUNT=1000", " --schedule " + file), "user");
  EXPECT_EQ(policy("", ""), "default");
  std::filesystem::remove_all(dir);
}

TEST(Cli, FeaturesPrintsTheProgramsFeatures) {
  const std::string key =
      "conv2d|float32[1,16,14,14];float32[32,16,3,3]|dilations=[1,1];groups=1;pads=[1,1,1,1];"
      "strides=[1,1]|bias+relu";
  CmdResult r = tensorperf("features --workload '" + key + "' --isa avx2 --loops --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kind"], "loop_nest");
  EXPECT_EQ(j["workload"], key);
  EXPECT_FALSE(j["leaves"].empty());
  EXPECT_GT(j["pooled"]["nest.flops"].get<double>(), 0);
  EXPECT_EQ(j["device_features"]["vector_lanes"], 8);
  EXPECT_FALSE(j["loop_nest"]["loops"].empty());
  CmdResult onednn = tensorperf("features --workload '" + key + "' --provider onednn --json");
  ASSERT_EQ(onednn.exit_code, 0) << onednn.err;
  EXPECT_EQ(nlohmann::json::parse(onednn.out)["kind"], "knobs");
  EXPECT_EQ(nlohmann::json::parse(onednn.out)["pooled"]["config.chained_io"], 0);
  CmdResult chained = tensorperf("features --workload '" + key + "' --provider onednn --chained --json");
  ASSERT_EQ(chained.exit_code, 0) << chained.err;
  EXPECT_EQ(nlohmann::json::parse(chained.out)["pooled"]["config.chained_io"], 1);
  CmdResult table = tensorperf("features --workload '" + key + "'");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("pooled feature"), std::string::npos) << table.out;
  for (const std::string& bad : {std::string("features --workload nonsense"),
                                 "features --workload '" + key + "' --config '{\"vector_width\": 8}'",
                                 "features --workload '" + key + "' --config '[1,2'"}) {
    CmdResult e = tensorperf(bad);
    EXPECT_NE(e.exit_code, 0) << bad;
    EXPECT_EQ(lines(e.err), 1) << bad << ": " << e.err;
    EXPECT_TRUE(e.out.empty()) << bad;
  }
}

// eval over the shipped best-known records of one device, described by a hand-written description.
TEST(Cli, EvalScoresACostModelOnADatabase) {
  const auto dir = std::filesystem::temp_directory_path() / ("tp_eval_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string db = (dir / "records.db").string();
  CmdResult imp = tensorperf("db import --db " + db + " " + TENSORPERF_SOURCE_DIR +
                             "/data/best_known/resnet18_x86_64-amd-epyc-avx512-t2.jsonl");
  ASSERT_EQ(imp.exit_code, 0) << imp.err;
  std::ofstream(dir / "device-x86_64-amd-epyc-avx512-t2.json")
      << R"({"arch":"x86_64","cpu_model":"AMD EPYC 7B13","isa_features":["sse41","avx","avx2","fma","avx512f"],)"
      << R"("isa":"avx512","target":"x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41","cores":2,"threads":2,)"
      << R"("l1d_bytes":32768,"l2_bytes":524288,"l3_bytes":33554432,"peak_gflops":150,"mem_bandwidth_gbs":12,)"
      << R"("clock_mhz":2000})";
  const std::string model = (dir / "model.json").string();
  // Features go to a cache of the test's own; the evals of the other database below read them back.
  const std::string cache = " --feature-cache " + (dir / "cache" / "features.sqlite").string();
  CmdResult r = tensorperf("eval --db " + db + " --devices " + dir.string() + " --split random --save " + model +
                           cache + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["feature_cache"]["hits"], 0);
  const int programs = j["feature_cache"]["computed"].get<int>();
  EXPECT_GT(programs, 0);
  EXPECT_LE(programs, 36);
  // Progress goes to stderr with --json too; stdout is the JSON alone (parsed above).
  EXPECT_NE(r.err.find("eval: [1/1] xgb random"), std::string::npos) << r.err;
  EXPECT_EQ(j["samples"], 36);
  ASSERT_EQ(j["splits"].size(), 1u);
  EXPECT_EQ(j["splits"][0]["split"], "random");
  EXPECT_EQ(j["splits"][0]["test"].get<int>() + j["splits"][0]["train"].get<int>(), 36);
  EXPECT_GE(j["splits"][0]["mape"].get<double>(), 0);
  EXPECT_TRUE(j["splits"][0]["pretrained"].is_null()) << "nothing is fine-tuned in a random split";
  EXPECT_TRUE(std::filesystem::exists(model));
  EXPECT_TRUE(j["off_clock"].empty()) << "these records keep no clock";
  {
    // The same records measured on a host at another clock than the description's: counted.
    std::ifstream in(std::string(TENSORPERF_SOURCE_DIR) + "/data/best_known/resnet18_x86_64-amd-epyc-avx512-t2.jsonl");
    std::ofstream out(dir / "other_host.jsonl");
    for (std::string line; std::getline(in, line);) {
      auto rec = nlohmann::json::parse(line);
      rec["result"]["clock_mhz"] = 2600.0;
      out << rec.dump() << "\n";
    }
    out.close();
    const std::string other = (dir / "other_host.db").string();
    ASSERT_EQ(tensorperf("db import --db " + other + " " + (dir / "other_host.jsonl").string()).exit_code, 0);
    CmdResult e = tensorperf("eval --db " + other + " --devices " + dir.string() + " --split random" + cache + " --json");
    ASSERT_EQ(e.exit_code, 0) << e.err;
    // The same programs: every one read from the cache, none featurised again.
    EXPECT_EQ(nlohmann::json::parse(e.out)["feature_cache"]["hits"], programs);
    EXPECT_EQ(nlohmann::json::parse(e.out)["feature_cache"]["computed"], 0);
    EXPECT_NE(e.err.find(std::to_string(programs) + " programs' features read from "), std::string::npos) << e.err;
    EXPECT_EQ(nlohmann::json::parse(e.out)["off_clock"],
              nlohmann::json::parse(R"({"x86_64-amd-epyc-avx512-t2": {"2600": 36}})"));
    CmdResult table = tensorperf("eval --db " + other + " --devices " + dir.string() + " --split random" + cache);
    ASSERT_EQ(table.exit_code, 0) << table.err;
    EXPECT_NE(table.out.find("36 records of x86_64-amd-epyc-avx512-t2 were measured at 2600 MHz; the description of "),
              std::string::npos)
        << table.out;
    // Described by the closest device (another key): their seconds are left as measured.
    EXPECT_NE(table.out.find("its vector does not describe them"), std::string::npos) << table.out;
  }
  // The saved model predicts a model's latency here, and beside a real run with --compare.
  CmdResult p = tensorperf("predict --model squeezenet1_1 --image-size 64 --threads 1 --cost-model " + model +
                           " --compare --repeat 3 --json");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  auto pj = nlohmann::json::parse(p.out);
  EXPECT_EQ(pj["ops"].size(), 22u);
  EXPECT_EQ(pj["cold_reads"], true);
  const double peak = pj["device_features"]["peak_gflops"].get<double>();
  const double bandwidth = pj["device_features"]["mem_bandwidth_gbs"].get<double>();
  double sum = 0, alone_sum = 0, weights_sum = 0, cold_inputs_sum = 0;
  for (const auto& op : pj["ops"]) {
    EXPECT_GT(op["predicted_ms"].get<double>(), 0);
    // A convolution's weights, read from memory in the model: added to its prediction as the
    // device's bandwidth and ridge give it (nothing where the kernel takes longer than reading them
    // and does fewer flops per weight byte than the ridge); nothing for the other operators.
    auto w = tensorperf::ir::parse_workload_key(op["workload"].get<std::string>());
    ASSERT_TRUE(w.ok()) << op.dump();
    const double weights = op["weights_ms"].get<double>(), cold_inputs = op["cold_inputs_ms"].get<double>();
    EXPECT_NEAR(weights,
                1e3 * tensorperf::costmodel::streamed_weights_seconds(
                          *w, (op["predicted_ms"].get<double>() - weights - cold_inputs) / 1e3, peak, bandwidth),
                1e-9)
        << op.dump();
    // Activations read from memory (those written more than a core's L2 before): never negative,
    // and summed into the total.
    EXPECT_GE(cold_inputs, 0) << op.dump();
    cold_inputs_sum += cold_inputs * op["count"].get<double>();
    if (w->op == tensorperf::ir::OpKind::kConv2d) {
      EXPECT_GE(weights, 0) << op.dump();
    } else {
      EXPECT_EQ(weights, 0) << op.dump();
    }
    weights_sum += weights * op["count"].get<double>();
    EXPECT_GT(op["measured_ms"].get<double>(), 0) << op.dump();
    sum += op["predicted_ms"].get<double>() * op["count"].get<double>();
    // The share of the instances predicted inside a chain of native layouts (only kernels that have one).
    const double chained = op["chained_share"].get<double>();
    EXPECT_GE(chained, 0) << op.dump();
    EXPECT_LE(chained, 1) << op.dump();
    if (op["provider"] == "halide") {
      EXPECT_EQ(chained, 0) << op.dump();
    }
    // Without a chain the prediction is the one alone.
    const double alone = op["predicted_alone_ms"].get<double>();
    EXPECT_GT(alone, 0) << op.dump();
    if (chained == 0) {
      EXPECT_EQ(alone, op["predicted_ms"].get<double>()) << op.dump();
    }
    alone_sum += alone * op["count"].get<double>();
  }
  // The layout copies are the run's layout steps: SqueezeNet's channels-last concats (one per fire
  // module, eight) where oneDNN runs its convolutions channels last, none where it blocks them (an
  // AVX2-only EPYC). Each is predicted from the device's bandwidth, and measured in the run.
  CmdResult steps = tensorperf("run --model squeezenet1_1 --image-size 64 --threads 1 --repeat 1 --json");
  ASSERT_EQ(steps.exit_code, 0) << steps.err;
  int layout_concats = 0;
  const auto steps_json = nlohmann::json::parse(steps.out);  // kept: a loop over a temporary's member dangles
  for (const auto& op : steps_json["ops"]) layout_concats += op["provider"] == "layout" && op["op"] == "concat";
  EXPECT_TRUE(layout_concats == 0 || layout_concats == 8) << layout_concats;
  double copies = 0;
  int concats = 0;
  for (const auto& c : pj["copies"]) {
    EXPECT_EQ(c["op"], "concat") << c.dump();
    EXPECT_GT(c["bytes"].get<double>(), 0) << c.dump();
    EXPECT_GT(c["predicted_ms"].get<double>(), 0) << c.dump();
    EXPECT_GT(c["measured_ms"].get<double>(), 0) << c.dump();
    EXPECT_EQ(c["nodes"].size(), c["count"].get<size_t>()) << c.dump();
    copies += c["predicted_ms"].get<double>() * c["count"].get<double>();
    concats += c["count"].get<int>();
  }
  EXPECT_EQ(concats, layout_concats);
  EXPECT_NEAR(pj["predicted_copies_ms"].get<double>(), copies, 1e-9 * copies);
  if (layout_concats > 0) EXPECT_GT(pj["measured_copies_ms"].get<double>(), 0);
  EXPECT_NEAR(pj["predicted_ms"].get<double>(), sum + copies, 1e-9 * sum);
  EXPECT_NEAR(pj["predicted_alone_ms"].get<double>(), alone_sum + copies, 1e-9 * alone_sum);
  EXPECT_GT(weights_sum, 0);
  EXPECT_NEAR(pj["predicted_weights_ms"].get<double>(), weights_sum, 1e-9 * weights_sum);
  EXPECT_NEAR(pj["predicted_cold_inputs_ms"].get<double>(), cold_inputs_sum, 1e-9);
  EXPECT_GT(pj["measured_ms"].get<double>(), 0);
  // --compare predicts the configs the run chose: a stored Halide config that the run's load-time
  // check replaces by oneDNN's default (Halide's default config of the slowest convolution, recorded
  // as taking a nanosecond) is predicted as oneDNN's default.
  std::string slowest;
  double slowest_ms = 0;
  for (const auto& op : pj["ops"])
    if (op["workload"].get<std::string>().rfind("conv2d|", 0) == 0 && op["measured_ms"].get<double>() > slowest_ms)
      slowest = op["workload"].get<std::string>(), slowest_ms = op["measured_ms"].get<double>();
  ASSERT_FALSE(slowest.empty());
  CmdResult f = tensorperf("features --workload '" + slowest + "' --provider halide --json");
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const auto fj = nlohmann::json::parse(f.out);
  const nlohmann::json record{{"config", fj["config"]["knobs"]},
                              {"input",
                               {{"device", pj["device"]},
                                {"provider", "halide"},
                                {"target", fj["device_description"]["target"]},
                                {"workload", slowest}}},
                              {"result",
                               {{"build_time", 0.1},
                                {"costs", {1e-9}},
                                {"error_msg", ""},
                                {"error_no", 0},
                                {"run_time", 0.1},
                                {"timestamp", 1.8e9}}},
                              {"version", {{"format", 1}, {"tensorperf", "0.1.0"}}}};
  std::ofstream(dir / "halide_default.jsonl") << record.dump() << "\n";
  const std::string slow_db = (dir / "slow.db").string();
  CmdResult imp_slow = tensorperf("db import --db " + slow_db + " " + (dir / "halide_default.jsonl").string());
  ASSERT_EQ(imp_slow.exit_code, 0) << imp_slow.err;
  CmdResult ps = tensorperf("predict --model squeezenet1_1 --image-size 64 --threads 1 --cost-model " + model +
                            " --db " + slow_db + " --compare --repeat 1 --json");
  ASSERT_EQ(ps.exit_code, 0) << ps.err;
  CmdResult onednn_default = tensorperf("features --workload '" + slowest + "' --provider onednn --json");
  ASSERT_EQ(onednn_default.exit_code, 0) << onednn_default.err;
  const nlohmann::json default_knobs = nlohmann::json::parse(onednn_default.out)["config"]["knobs"];
  bool found = false;
  const nlohmann::json psj = nlohmann::json::parse(ps.out);
  for (const auto& op : psj["ops"]) {
    if (op["workload"] != slowest) continue;
    found = true;
    EXPECT_EQ(op["provider"], "onednn") << op.dump();
    EXPECT_EQ(op["source"], "default") << op.dump();
    EXPECT_EQ(op["config"], default_knobs) << op.dump();
  }
  EXPECT_TRUE(found) << ps.out;
  // The run itself names each kernel's config.
  CmdResult run =
      tensorperf("run --model squeezenet1_1 --image-size 64 --threads 1 --repeat 1 --db " + slow_db + " --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json runj = nlohmann::json::parse(run.out);
  for (const auto& op : runj["ops"]) {
    ASSERT_TRUE(op["config"].is_object()) << op.dump();
    if (op["workload"] == slowest) {
      EXPECT_EQ(op["provider"], "onednn") << op.dump();
      EXPECT_EQ(op["config"], default_knobs) << op.dump();
    }
  }
  // A graph calibration from the two comparisons: per class, the run's time as a factor times the
  // prediction plus an added time per instance.
  std::ofstream(dir / "cmp1.json") << p.out;
  std::ofstream(dir / "cmp2.json") << ps.out;
  const std::string cal = (dir / "cal.json").string();
  CmdResult c = tensorperf("calibrate " + (dir / "cmp1.json").string() + " " + (dir / "cmp2.json").string() + " -o " +
                           cal + " --json");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const nlohmann::json cj = nlohmann::json::parse(c.out);
  EXPECT_EQ(cj["device"], pj["device"]);
  EXPECT_EQ(cj["cost_model_id"], pj["cost_model_id"]);
  {
    // "all": measured = factor x predicted + added over every kernel instance of both runs, least
    // squares with each squared error over the instance's measured time.
    double pp = 0, sp = 0, one = 0, pm = 0, sm = 0;
    for (const nlohmann::json* r : {static_cast<const nlohmann::json*>(&pj), &psj})
      for (const auto& op : (*r)["ops"]) {
        const double p = op["predicted_ms"].get<double>(), m = op["measured_ms"].get<double>();
        const double w = op["count"].get<double>() / m;
        pp += w * p * p, sp += w * p, one += w, pm += w * p * m, sm += w * m;
      }
    double factor = (pm * one - sp * sm) / (pp * one - sp * sp), added = (pp * sm - sp * pm) / (pp * one - sp * sp);
    if (added < 0) factor = pm / pp, added = 0;
    EXPECT_NEAR(cj["fits"]["all"]["factor"].get<double>(), factor, 1e-6 * factor);
    EXPECT_NEAR(cj["fits"]["all"]["added_s"].get<double>() * 1e3, added, 1e-6 * std::max(added, 1e-3));
    EXPECT_EQ(cj["fits"]["all"]["models"], 2);
  }
  CmdResult plain =
      tensorperf("predict --model squeezenet1_1 --image-size 64 --threads 1 --cost-model " + model + " --json");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  {
    // Without the reads from memory: each prediction less its weights' and activations' time.
    CmdResult unstreamed = tensorperf("predict --model squeezenet1_1 --image-size 64 --threads 1 --cost-model " +
                                      model + " --no-cold-reads --json");
    ASSERT_EQ(unstreamed.exit_code, 0) << unstreamed.err;
    const nlohmann::json pl = nlohmann::json::parse(plain.out), un = nlohmann::json::parse(unstreamed.out);
    EXPECT_EQ(un["cold_reads"], false);
    EXPECT_EQ(un["predicted_weights_ms"], 0.0);
    EXPECT_EQ(un["predicted_cold_inputs_ms"], 0.0);
    ASSERT_EQ(un["ops"].size(), pl["ops"].size());
    for (size_t i = 0; i < un["ops"].size(); ++i)
      EXPECT_NEAR(un["ops"][i]["predicted_ms"].get<double>(),
                  pl["ops"][i]["predicted_ms"].get<double>() - pl["ops"][i]["weights_ms"].get<double>() -
                      pl["ops"][i]["cold_inputs_ms"].get<double>(),
                  1e-12);
    EXPECT_NEAR(un["predicted_ms"].get<double>(),
                pl["predicted_ms"].get<double>() - pl["predicted_weights_ms"].get<double>() -
                    pl["predicted_cold_inputs_ms"].get<double>(),
                1e-9);
    // A calibration fitted to predictions with it does not apply to predictions without.
    CmdResult mixed = tensorperf("predict --model squeezenet1_1 --image-size 64 --threads 1 --cost-model " + model +
                                 " --no-cold-reads --calibration " + cal);
    EXPECT_EQ(mixed.exit_code, 2);
    EXPECT_EQ(lines(mixed.err), 1) << mixed.err;
    EXPECT_NE(mixed.err.find("calibrate again"), std::string::npos) << mixed.err;
    // Nor are comparisons predicted both ways fitted together.
    nlohmann::json cmp2 = psj;
    cmp2["cold_reads"] = false;
    std::ofstream(dir / "cmp2_unstreamed.json") << cmp2.dump();
    CmdResult both =
        tensorperf("calibrate " + (dir / "cmp1.json").string() + " " + (dir / "cmp2_unstreamed.json").string());
    EXPECT_EQ(both.exit_code, 1);
    EXPECT_EQ(lines(both.err), 1) << both.err;
    EXPECT_NE(both.err.find("--no-cold-reads"), std::string::npos) << both.err;
  }
  CmdResult calibrated = tensorperf("predict --model squeezenet1_1 --image-size 64 --threads 1 --cost-model " + model +
                                    " --calibration " + cal + " --json");
  ASSERT_EQ(calibrated.exit_code, 0) << calibrated.err;
  {
    const nlohmann::json pl = nlohmann::json::parse(plain.out), ca = nlohmann::json::parse(calibrated.out);
    EXPECT_NEAR(ca["predicted_uncalibrated_ms"].get<double>(), pl["predicted_ms"].get<double>(), 1e-9);
    double sum = 0;
    for (size_t i = 0; i < ca["ops"].size(); ++i) {
      const auto& op = ca["ops"][i];
      EXPECT_NEAR(op["predicted_uncalibrated_ms"].get<double>(), pl["ops"][i]["predicted_ms"].get<double>(), 1e-12);
      EXPECT_NEAR(op["predicted_ms"].get<double>(),
                  op["predicted_uncalibrated_ms"].get<double>() * op["calibration_factor"].get<double>() +
                      op["calibration_added_ms"].get<double>(),
                  1e-12);
      sum += op["predicted_ms"].get<double>() * op["count"].get<double>();
    }
    for (const auto& copy : ca["copies"]) sum += copy["predicted_ms"].get<double>() * copy["count"].get<double>();
    EXPECT_NEAR(ca["predicted_ms"].get<double>(), ca["calibration"]["overhead"].get<double>() * sum, 1e-9);
    EXPECT_NE(ca["predicted_ms"], pl["predicted_ms"]);
  }
  // A prediction without a run cannot calibrate; a calibration of another device or cost model is refused.
  std::ofstream(dir / "norun.json") << plain.out;
  CmdResult norun = tensorperf("calibrate " + (dir / "norun.json").string());
  EXPECT_EQ(norun.exit_code, 1);
  EXPECT_EQ(lines(norun.err), 1) << norun.err;
  EXPECT_NE(norun.err.find("--compare"), std::string::npos) << norun.err;
  for (const char* field : {"device", "cost_model_id"}) {
    nlohmann::json other = cj;
    other[field] = "another";
    std::ofstream(dir / "cal_other.json") << other.dump();
    CmdResult r = tensorperf("predict --model squeezenet1_1 --image-size 64 --threads 1 --cost-model " + model +
                             " --calibration " + (dir / "cal_other.json").string());
    EXPECT_EQ(r.exit_code, 2) << field;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("calibrate"), std::string::npos) << r.err;
  }
  CmdResult no_model = tensorperf("predict --model squeezenet1_1 --cost-model " + (dir / "none.json").string());
  EXPECT_NE(no_model.exit_code, 0);
  EXPECT_EQ(lines(no_model.err), 1) << no_model.err;
  CmdResult bad = tensorperf("eval --db " + db + " --devices " + dir.string() + " --split sideways");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(lines(bad.err), 1) << bad.err;
  // A feature cache that is another kind of file: refused in one line that names the way out.
  CmdResult not_cache = tensorperf("eval --db " + db + " --devices " + dir.string() + " --split random --feature-cache " + db);
  EXPECT_EQ(not_cache.exit_code, 2);
  EXPECT_EQ(lines(not_cache.err), 1) << not_cache.err;
  EXPECT_NE(not_cache.err.find("--feature-cache off"), std::string::npos) << not_cache.err;
  // This database holds one CPU's records: nothing to hold out a CPU against.
  CmdResult one_cpu = tensorperf("eval --db " + db + " --devices " + dir.string() + " --split cross-cpu --json");
  EXPECT_EQ(one_cpu.exit_code, 2);
  EXPECT_EQ(lines(one_cpu.err), 1) << one_cpu.err;
  EXPECT_NE(one_cpu.err.find("two CPUs"), std::string::npos) << one_cpu.err;
  CmdResult no_devices = tensorperf("eval --db " + db + " --devices " + (dir / "none").string());
  EXPECT_NE(no_devices.exit_code, 0);
  EXPECT_EQ(lines(no_devices.err), 1) << no_devices.err;
  std::filesystem::remove_all(dir);
}

// A model keeps the vectors of the devices it was trained on; predicting for this machine when it is
// one of them uses that vector (the peaks probed again here would differ), else a description from
// --devices, else the peaks measured here.
TEST(Cli, PredictUsesTheDeviceVectorTheModelLearned) {
  const auto dir = std::filesystem::temp_directory_path() / ("tp_predict_dev_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "described");
  std::filesystem::create_directories(dir / "empty");
  // This machine at 1 thread: its key and description.
  CmdResult f = tensorperf(
      "features --workload 'dense|float32[1,512];float32[1000,512]||bias' --provider onednn "
      "--threads 1 --json");
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const auto fj = nlohmann::json::parse(f.out);
  const std::string key = fj["device"];
  nlohmann::json description = fj["device_description"];
  ASSERT_EQ(description["key"], key);
  description["peak_gflops"] = 4321.0;  // no probe measures this here
  std::ofstream(dir / "described" / ("device-" + key + ".json")) << description.dump();
  // Records of this machine: the shipped ones, relabelled.
  std::ifstream in(std::string(TENSORPERF_SOURCE_DIR) + "/data/best_known/resnet18_x86_64-amd-epyc-avx512-t2.jsonl");
  std::ofstream out(dir / "here.jsonl");
  for (std::string line; std::getline(in, line);) {
    auto r = nlohmann::json::parse(line);
    r["input"]["device"] = key;
    out << r.dump() << "\n";
  }
  out.close();
  const std::string db = (dir / "records.db").string();
  ASSERT_EQ(tensorperf("db import --db " + db + " " + (dir / "here.jsonl").string()).exit_code, 0);
  const std::string model = (dir / "model.json").string();
  CmdResult e = tensorperf("eval --db " + db + " --devices " + (dir / "described").string() +
                           " --split random --save " + model + " --json");
  ASSERT_EQ(e.exit_code, 0) << e.err;
  auto predict = [&](const std::string& model_file, const std::string& extra) {
    CmdResult p = tensorperf("predict --model squeezenet1_1 --image-size 64 --threads 1 --cost-model " + model_file +
                             " --json " + extra);
    EXPECT_EQ(p.exit_code, 0) << p.err;
    return p.exit_code == 0 ? nlohmann::json::parse(p.out) : nlohmann::json::object();
  };
  // Trained on this machine: the learned vector, whatever --devices holds.
  nlohmann::json trained = predict(model, "--devices " + (dir / "empty").string());
  EXPECT_EQ(trained["device"], key);
  EXPECT_EQ(trained["device_vector"], "trained");
  EXPECT_EQ(trained["device_features"]["peak_gflops"], 4321.0);
  EXPECT_EQ(predict(model, "--device " + key)["device_vector"], "trained");
  // A model file without its devices (as older files are): --devices' description, else measured.
  nlohmann::json file = nlohmann::json::parse(slurp(model));
  ASSERT_EQ(file["devices"].size(), 1u);
  file.erase("devices");
  const std::string older = (dir / "older.json").string();
  std::ofstream(older) << file.dump();
  nlohmann::json described = predict(older, "--devices " + (dir / "described").string());
  EXPECT_EQ(described["device_vector"], "described");
  EXPECT_EQ(described["device_features"]["peak_gflops"], 4321.0);
  EXPECT_EQ(described["predicted_ms"], trained["predicted_ms"]);
  nlohmann::json measured = predict(older, "--devices " + (dir / "empty").string());
  EXPECT_EQ(measured["device_vector"], "measured");
  EXPECT_NE(measured["device_features"]["peak_gflops"], 4321.0);
  // Described at this machine's clock: nothing scaled. Described at twice its clock (a host of the
  // same CPU model running faster): every kernel's prediction doubles, unless --no-clock-scale. The
  // weights' reading from memory does not run at the cores' clock: not scaled, so only less where
  // a kernel that streams its weights takes longer.
  EXPECT_EQ(trained["clock_scale"], 1.0);
  ASSERT_GT(description["clock_mhz"].get<double>(), 0);
  description["clock_mhz"] = 2 * description["clock_mhz"].get<double>();
  std::filesystem::create_directories(dir / "faster");
  std::ofstream(dir / "faster" / ("device-" + key + ".json")) << description.dump();
  nlohmann::json scaled = predict(older, "--devices " + (dir / "faster").string() + " --no-cold-reads");
  nlohmann::json unscaled =
      predict(older, "--devices " + (dir / "faster").string() + " --no-clock-scale --no-cold-reads");
  nlohmann::json scaled_streamed = predict(older, "--devices " + (dir / "faster").string());
  nlohmann::json unscaled_streamed = predict(older, "--devices " + (dir / "faster").string() + " --no-clock-scale");
  EXPECT_GT(scaled_streamed["predicted_weights_ms"].get<double>(), 0);
  EXPECT_LE(scaled_streamed["predicted_weights_ms"].get<double>(),
            unscaled_streamed["predicted_weights_ms"].get<double>());
  EXPECT_DOUBLE_EQ(scaled["clock_scale"].get<double>(), 2.0);
  EXPECT_EQ(unscaled["clock_scale"], 1.0);
  EXPECT_NEAR(scaled["predicted_ms"].get<double>(), 2 * unscaled["predicted_ms"].get<double>(),
              1e-9 * scaled["predicted_ms"].get<double>());
  EXPECT_EQ(predict(older, "--devices " + (dir / "faster").string() + " --device " + key)["clock_scale"], 1.0)
      << "another device's prediction is not scaled by this machine's clock";
  // A --devices that cannot be read is an error, not silently ignored.
  CmdResult missing = tensorperf("predict --model squeezenet1_1 --image-size 64 --threads 1 --cost-model " + older +
                                 " --devices " + (dir / "none").string());
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_EQ(lines(missing.err), 1) << missing.err;
  std::filesystem::remove_all(dir);
}

// RFC 4180 fields of one CSV line (quoted fields may hold commas and doubled quotes).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      out.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

// cross-model for chosen networks only (--networks): ResNet-18's records, and the same configs of
// its workloads at batch 2 (in no zoo network at the dataset's batches) to train on.
TEST(Cli, EvalHoldsOutChosenNetworksAndNamesEachPredictionsConfig) {
  const auto dir = std::filesystem::temp_directory_path() / ("tp_eval_nets_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string key = "x86_64-amd-epyc-avx512-t2";
  const std::string shipped = std::string(TENSORPERF_SOURCE_DIR) + "/data/best_known/resnet18_" + key + ".jsonl";
  std::ifstream in(shipped);
  std::ofstream out(dir / "batch2.jsonl");
  for (std::string line; std::getline(in, line);) {
    auto r = nlohmann::json::parse(line);
    std::string w = r["input"]["workload"];
    const size_t at = w.find("[1,");
    ASSERT_NE(at, std::string::npos) << w;
    r["input"]["workload"] = w.replace(at, 3, "[2,");
    out << r.dump() << "\n";
  }
  out.close();
  const std::string db = (dir / "records.db").string();
  CmdResult imp = tensorperf("db import --db " + db + " " + shipped + " " + (dir / "batch2.jsonl").string());
  ASSERT_EQ(imp.exit_code, 0) << imp.err;
  std::ofstream(dir / ("device-" + key + ".json"))
      << R"({"arch":"x86_64","cpu_model":"AMD EPYC","isa_features":["sse41","avx","avx2","fma","avx512f"],)"
      << R"("isa":"avx512","target":"x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41","cores":2,"threads":2,)"
      << R"("l1d_bytes":32768,"l2_bytes":524288,"l3_bytes":33554432,"peak_gflops":150,"mem_bandwidth_gbs":12})";
  const std::string csv = (dir / "predictions.csv").string();
  const std::string eval = "eval --db " + db + " --devices " + dir.string() + " ";
  CmdResult r = tensorperf(eval + "--split cross-model --networks resnet18 --predictions " + csv + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["splits"].size(), 1u) << r.out;
  EXPECT_EQ(j["splits"][0]["split"], "cross-model resnet18");
  const int test = j["splits"][0]["test"], train = j["splits"][0]["train"];
  EXPECT_EQ(test, train) << "the batch-2 copies train, the originals test";
  std::ifstream rows(csv);
  std::string line;
  ASSERT_TRUE(std::getline(rows, line));
  EXPECT_EQ(line, "model,split,workload,device,provider,measured_s,predicted_s,config,chained");
  int n = 0, chained = 0;
  std::set<std::string> configs;
  while (std::getline(rows, line)) {
    const std::vector<std::string> f = csv_fields(line);
    ASSERT_EQ(f.size(), 9u) << line;
    EXPECT_EQ(f[1], "cross-model resnet18");
    EXPECT_EQ(f[2].find("float32[2,"), std::string::npos) << "a training workload tested: " << line;
    const auto knobs = nlohmann::json::parse(f[7]);
    EXPECT_TRUE(knobs.is_object() && !knobs.empty()) << line;
    configs.insert(f[7]);
    ASSERT_TRUE(f[8] == "0" || f[8] == "1") << line;
    chained += f[8] == "1";
    ++n;
  }
  EXPECT_EQ(n, test);
  EXPECT_GT(configs.size(), 2u) << "each row names its own config";
  EXPECT_EQ(chained, 0) << "these records have no native costs";
  for (const std::string& bad : {std::string("--split cross-model --networks resnet1"),   // not in the zoo
                                 std::string("--split random --networks resnet18"),       // not a cross-model split
                                 std::string("--split cross-model --networks vgg16")}) {  // no records of it
    CmdResult e = tensorperf(eval + bad + " --json");
    EXPECT_NE(e.exit_code, 0) << bad;
    EXPECT_EQ(error_lines(e.err), 1) << bad << ": " << e.err;  // the last needs the records featurised
  }
  std::filesystem::remove_all(dir);
}

// cross-cpu: the same records again as a second CPU's (another key, another description); each
// device is evaluated after pre-training on the other CPU's records only.
TEST(Cli, EvalHoldsOutAWholeCpu) {
  const auto dir = std::filesystem::temp_directory_path() / ("tp_eval_cpu_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string db = (dir / "records.db").string();
  const std::string first = "x86_64-amd-epyc-avx512-t2", second = "x86_64-amd-epyc-f26m2-avx512-t2";
  std::ifstream in(std::string(TENSORPERF_SOURCE_DIR) + "/data/best_known/resnet18_" + first + ".jsonl");
  std::ofstream out(dir / "second.jsonl");
  for (std::string line; std::getline(in, line);) {
    auto r = nlohmann::json::parse(line);
    ASSERT_EQ(r["input"]["device"], first);
    r["input"]["device"] = second;
    for (auto& c : r["result"]["costs"]) c = c.get<double>() * 3;  // a slower CPU: the other's records are 3x off
    out << r.dump() << "\n";
  }
  out.close();
  CmdResult imp = tensorperf("db import --db " + db + " " + TENSORPERF_SOURCE_DIR + "/data/best_known/resnet18_" +
                             first + ".jsonl " + (dir / "second.jsonl").string());
  ASSERT_EQ(imp.exit_code, 0) << imp.err;
  // Two CPUs: the second has its signature and a larger L1d (as family 26 has), so it is not the
  // first one's CPU under a newer key (DeviceTable::find_for).
  for (const auto& [key, signature, l1d] :
       {std::tuple{first, "", "32768"}, std::tuple{second, R"("cpu_signature":"f26m2",)", "49152"}})
    std::ofstream(dir / ("device-" + key + ".json"))
        << R"({"arch":"x86_64","cpu_model":"AMD EPYC",)" << signature
        << R"("isa_features":["sse41","avx","avx2","fma","avx512f"],)"
        << R"("isa":"avx512","target":"x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41","cores":2,"threads":2,)"
        << R"("l1d_bytes":)" << l1d
        << R"(,"l2_bytes":524288,"l3_bytes":33554432,"peak_gflops":150,"mem_bandwidth_gbs":12})";
  CmdResult r = tensorperf("eval --db " + db + " --devices " + dir.string() + " --split cross-cpu --shares 10 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["samples"], 72);
  EXPECT_TRUE(j["closest_device"].empty()) << j["closest_device"].dump();  // both described as themselves
  ASSERT_EQ(j["splits"].size(), 4u);                                       // two devices x (k-means, random)
  for (const auto& split : j["splits"]) {
    EXPECT_EQ(split["split"].get<std::string>().rfind("cross-cpu ", 0), 0u) << split.dump();
    EXPECT_EQ(split["train"], 36) << split.dump();
    EXPECT_EQ(split["fine_tune"].get<int>() + split["test"].get<int>(), 36) << split.dump();
    EXPECT_GE(split["mape"].get<double>(), 0);
    // The pre-trained model's figures beside the fine-tuned one's. A share of under 10 samples leaves
    // xgb's pre-trained model as it is, so both are the same model's.
    ASSERT_TRUE(split["pretrained"].is_object()) << split.dump();
    ASSERT_LT(split["fine_tune"].get<int>(), 10) << split.dump();
    EXPECT_EQ(split["pretrained"]["mape"], split["mape"]) << split.dump();
    EXPECT_EQ(split["pretrained"]["samples"], split["test"]) << split.dump();
  }
  // --held-out-devices: only the named device is held out.
  const std::string eval = "eval --db " + db + " --devices " + dir.string() + " ";
  r = tensorperf(eval + "--split cross-device --held-out-devices " + second + " --shares 10 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["splits"].size(), 2u) << r.out;  // one device x (k-means, random)
  for (const auto& split : j["splits"]) {
    EXPECT_NE(split["split"].get<std::string>().find(second), std::string::npos) << split.dump();
    EXPECT_EQ(split["split"].get<std::string>().find(first), std::string::npos) << split.dump();
    EXPECT_EQ(split["train"], 36) << split.dump();
  }
  // The pre-trained mlp knows only the 3x faster CPU: cross-validation on half of the held-out
  // device's samples finds that fine-tuning pays, and its figures before and after differ.
  r = tensorperf(eval + "--cost-model mlp --split cross-device --held-out-devices " + second + " --shares 50 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["splits"].size(), 2u) << r.out;
  for (const auto& split : j["splits"]) {
    ASSERT_TRUE(split["pretrained"].is_object()) << split.dump();
    EXPECT_EQ(split["pretrained"]["samples"], split["test"]) << split.dump();
    EXPECT_LT(split["mape"].get<double>(), split["pretrained"]["mape"].get<double>()) << split.dump();
  }
  for (const std::string& bad : {std::string("--split cross-device --held-out-devices x86_64-nowhere-t2"),  // none
                                 "--split random --held-out-devices " + second}) {  // no device split
    CmdResult e = tensorperf(eval + bad + " --json");
    EXPECT_EQ(e.exit_code, 2) << bad;
    EXPECT_EQ(lines(e.err), 1) << bad << ": " << e.err;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
