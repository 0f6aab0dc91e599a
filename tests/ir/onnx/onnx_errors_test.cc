// Bad input to the ONNX importer: each failure is one line that says what to fix.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "onnx_fixtures.h"

namespace tensorperf::ir {
namespace {

using testing::import_fixture;
using testing::onnx_fixture;

// Checks the status code, that the message is one line, and that it mentions every `needle`.
void expect_error(const Result<Graph>& r, StatusCode code, const std::vector<std::string>& needles) {
  ASSERT_FALSE(r.ok());
  const std::string& msg = r.status().message();
  EXPECT_EQ(r.status().code(), code) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  for (const std::string& n : needles) EXPECT_NE(msg.find(n), std::string::npos) << "'" << n << "' not in: " << msg;
}

TEST(OnnxErrors, MissingFileIsNotFound) {
  const std::string path = onnx_fixture("no_such_model");
  expect_error(import_onnx(path), StatusCode::kNotFound, {path});
}

TEST(OnnxErrors, DirectoryIsIoError) {
  const std::string dir = std::filesystem::path(onnx_fixture("conv")).parent_path().string();
  expect_error(import_onnx(dir), StatusCode::kIoError, {dir});
}

TEST(OnnxErrors, GarbageIsCorruption) {
  expect_error(import_fixture("garbage"), StatusCode::kCorruption, {"garbage.onnx", "not an ONNX model or truncated"});
}

TEST(OnnxErrors, TruncatedIsCorruption) {
  expect_error(import_fixture("truncated"), StatusCode::kCorruption,
               {"truncated.onnx", "not an ONNX model or truncated"});
}

TEST(OnnxErrors, EmptyFileIsCorruption) {
  expect_error(import_fixture("empty"), StatusCode::kCorruption, {"empty.onnx", "not an ONNX model or truncated"});
}

TEST(OnnxErrors, UnsupportedOperatorNamesNodeOpTypeAndOpset) {
  expect_error(import_fixture("unsupported_op"), StatusCode::kUnsupported,
               {"unsupported_op.onnx", "weird_hardmax", "Hardmax", "opset 13"});
}

TEST(OnnxErrors, ComparisonsOfComputedTensorsAreUnsupported) {
  expect_error(import_fixture("equal_computed"), StatusCode::kUnsupported, {"Equal", "constants only"});
}

TEST(OnnxErrors, UnsupportedAttributeValueNamesIt) {
  expect_error(import_fixture("conv_bad_auto_pad"), StatusCode::kUnsupported,
               {"conv_weird", "Conv", "opset 13", "auto_pad=SAME_MIDDLE"});
}

TEST(OnnxErrors, UnsupportedAttributeNamesIt) {
  expect_error(import_fixture("max_pool_storage_order"), StatusCode::kUnsupported,
               {"column_major_pool", "MaxPool", "storage_order"});
}

TEST(OnnxErrors, InitializerOfTheWrongSizeIsCorruption) {
  expect_error(import_fixture("short_initializer"), StatusCode::kCorruption, {"short_w", "[4,3,3,3]"});
}

TEST(OnnxErrors, OpsetOutsideElevenToSeventeen) {
  expect_error(import_fixture("opset10"), StatusCode::kUnsupported, {"opset 10", "11 to 17"});
  expect_error(import_fixture("opset18"), StatusCode::kUnsupported, {"opset 18", "11 to 17"});
}

TEST(OnnxErrors, CycleNamesANodeOnIt) {
  Result<Graph> r = import_fixture("cyclic");
  expect_error(r, StatusCode::kInvalidArgument, {"cycle"});
  const std::string& msg = r.status().message();
  EXPECT_TRUE(msg.find("loop_add") != std::string::npos || msg.find("loop_relu") != std::string::npos) << msg;
  EXPECT_EQ(msg.find("exit"), std::string::npos) << "exit is downstream of the cycle, not on it: " << msg;
}

TEST(OnnxErrors, InputNobodyProducesNamesIt) {
  expect_error(import_fixture("dangling_input"), StatusCode::kInvalidArgument, {"haunted", "ghost"});
}

TEST(OnnxErrors, PadNotFollowedByPoolOrConv) {
  expect_error(import_fixture("pad_relu"), StatusCode::kUnsupported, {"lonely_pad", "Pad"});
}

TEST(OnnxErrors, ClipOtherThanReluBounds) {
  expect_error(import_fixture("clip_other"), StatusCode::kUnsupported, {"clip_1_2", "Clip"});
}

TEST(OnnxErrors, ErfOutsideTheGeluPattern) {
  expect_error(import_fixture("erf_alone"), StatusCode::kUnsupported, {"lonely_erf", "Erf", "opset 13"});
}

TEST(OnnxErrors, BatchOverrideAgainstAFixedReshapeSaysWhy) {
  ASSERT_TRUE(import_fixture("fixed_batch_reshape").ok());
  expect_error(import_fixture("fixed_batch_reshape", {.batch = 3}), StatusCode::kInvalidArgument,
               {"fixed_batch_reshape.onnx", "exported at batch 2", "batch 3"});
}

// Every prefix of a valid file, and the file with random bytes overwritten, gives a model or a
// one-line error: never a crash.
TEST(OnnxErrors, NoCrashOnTruncationOrCorruption) {
  std::ifstream in(onnx_fixture("conv"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 100u);
  const std::string path = onnx_fixture("mutated");
  auto import_bytes = [&](const std::string& data) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << data;
    Result<Graph> g = import_onnx(path);
    if (!g.ok()) {
      EXPECT_EQ(g.status().message().find('\n'), std::string::npos) << g.status().message();
    }
    return g.ok();
  };
  int failures = 0;
  for (size_t n = 0; n < bytes.size(); n += 7) failures += import_bytes(bytes.substr(0, n)) ? 0 : 1;
  EXPECT_GT(failures, 0);
  std::mt19937 rng(0);
  for (int i = 0; i < 300; ++i) {
    std::string data = bytes;
    for (int k = 0; k < 4; ++k) data[rng() % data.size()] = static_cast<char>(rng());
    import_bytes(data);
  }
}

}  // namespace
}  // namespace tensorperf::ir
