// End-to-end tests of the `tensorperf` executable: output formats, exit codes, one-line errors.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

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

CmdResult tensorperf(const std::string& args) {
  auto dir = std::filesystem::temp_directory_path();
  std::string out = (dir / ("tp_cli_out_" + std::to_string(::getpid()))).string();
  std::string err = out + ".err";
  std::string cmd = std::string(TENSORPERF_EXE) + " " + args + " >" + out + " 2>" + err;
  int status = std::system(cmd.c_str());
  CmdResult r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

class BadOnnx : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string((std::filesystem::temp_directory_path() / ("tp_bad_onnx_" + std::to_string(::getpid()))).string());
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
    ASSERT_TRUE(t["key"].is_string() && t["op"].is_string() && t["count"].is_number_integer() && t["flops"].is_number());
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

}  // namespace
