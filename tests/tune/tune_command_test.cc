// `tensorperf tune` end to end: bad input is one line and writes nothing; SqueezeNet 1.1 with 200
// trials ends with every workload's tuned latency at most its default's, and a second run with the
// same budget measures nothing.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;

struct CmdRun {
  int exit_code;
  std::string out, err;
};

class TuneCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tp-tune-cli-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  CmdRun tensorperf(const std::string& args) {
    const std::string out = (dir_ / "stdout").string(), err = (dir_ / "stderr").string();
    // Peaks are cached per device; a private cache keeps the test independent of the user's.
    const std::string cmd = "XDG_CACHE_HOME=" + (dir_ / "cache").string() + " " + TENSORPERF_BINARY_DIR +
                            "/tensorperf " + args + " >" + out + " 2>" + err;
    int status = std::system(cmd.c_str());
    auto slurp = [](const std::string& p) {
      std::ifstream f(p);
      std::stringstream s;
      s << f.rdbuf();
      return s.str();
    };
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  }
  std::string db() const { return (dir_ / "tune.db").string(); }

  fs::path dir_;
};

TEST_F(TuneCommand, BadInputIsOneLineNonZeroAndWritesNothing) {
  const std::string model = "tune --model squeezenet1_1 --db " + db();
  for (const std::string& args :
       {model + " --tuner annealing", model + " --trials 0", model + " --trials -3", model + " --time-budget soon",
        model + " --workload 'conv2d|float32[1,3,9,9];float32[4,3,3,3]|dilations=[1,1];groups=1;pads=[0,0,0,0];"
                "strides=[1,1]|'",
        model + " --workload not-a-key", model + " --isa avx1024", model + " --threads 4096",
        model + " --slow-cutoff 0.5", model + " --slow-cutoff 1", model + " --slow-cutoff fast",
        std::string("tune --db ") + db(),
        std::string("tune --model squeezenet1_1 --trials 4 --db postgresql://nobody@127.0.0.1:1/none")}) {
    CmdRun r = tensorperf(args);
    EXPECT_NE(r.exit_code, 0) << args;
    EXPECT_EQ(r.err.rfind("tensorperf: error: ", 0), 0u) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    EXPECT_FALSE(fs::exists(db())) << args;
  }
  EXPECT_EQ(tensorperf(model + " --tuner annealing").exit_code, 2);
  EXPECT_NE(tensorperf(model + " --tuner annealing").err.find("xgb, ga, random, grid"), std::string::npos);
}

TEST_F(TuneCommand, SqueezeNetEndsAtOrBelowEveryDefaultAndASecondRunMeasuresNothing) {
  const std::string args = "tune --model squeezenet1_1 --trials 200 --threads 1 --min-repeat-ms 5 --repeat 2 --json --db " + db();
  CmdRun first = tensorperf(args);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  auto rep = nlohmann::json::parse(first.out);
  EXPECT_EQ(rep["measured"].get<int>(), 200);
  ASSERT_GT(rep["tasks"].size(), 10u);
  for (const auto& t : rep["tasks"]) {
    ASSERT_FALSE(t["default_s"].is_null()) << t["workload"];
    ASSERT_FALSE(t["tuned_s"].is_null()) << t["workload"];
    EXPECT_LE(t["tuned_s"].get<double>(), t["default_s"].get<double>()) << t["workload"];
  }
  EXPECT_LT(rep["estimated_s"]["tuned"].get<double>(), rep["estimated_s"]["default"].get<double>());
  // One progress line per batch on stderr, with the model's estimate.
  EXPECT_NE(first.err.find("model est."), std::string::npos) << first.err;

  CmdRun second = tensorperf(args);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  auto again = nlohmann::json::parse(second.out);
  EXPECT_EQ(again["measured"].get<int>(), 0);
  EXPECT_EQ(again["known"].get<int>(), 200);
}

}  // namespace
