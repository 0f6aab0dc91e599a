#include "db/line_parser.h"

#include <cmath>

#include <gtest/gtest.h>

#include "db/content_hash.h"
#include "measure/record.h"

namespace tensorperf::db {
namespace {

constexpr const char* kV02 =
    R"({"input": ["llvm -mcpu=skylake-avx512", "conv2d_NCHWc.x86", [["TENSOR", [1, 3, 224, 224], "float32"], [2, 2]], {}], )"
    R"("config": {"index": 193, "code_hash": null, "entity": [["tile_ic", "sp", [1, 3]]]}, )"
    R"("result": [[1.0, 3.0], 0, 1.75, 1539972731.35], "version": 0.2, "tvm_version": "0.7.dev0"})";
constexpr const char* kV01 =
    R"({"i": ["cuda -model=titanx", "topi_nn_conv2d", [["TENSOR", [1, 2048, 8, 8], "float32"]], {}, )"
    R"(["conv2d", [1, 2048, 8, 8, "float32"]], {"i": 8797896, "c": null, "e": [], "t": "direct"}], )"
    R"("r": [[5.0e-05], 0, 14.1, 1535423916.7], "v": 0.1})";
constexpr const char* kAnsor =
    R"({"i": [["[\"matmul_add\", 1024, 1024, 1024, \"float32\"]", "llvm -keys=cpu", [18, 64]], )"
    R"([[], [["SP", 2, 0, 1024, [2, 1, 4], 1]]]], "r": [[0.0044742], 0, 0.335558, 1607112214], "v": "v0.3"})";

TEST(LineParserTest, AutotvmV02) {
  LineParser p;
  auto r = p.parse(kV02);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->format, RecordFormat::kAutotvmV02);
  EXPECT_EQ(r->workload_key, R"(["conv2d_NCHWc.x86",["TENSOR",[1,3,224,224],"float32"],[2,2]])");
  EXPECT_EQ(r->device.key, "llvm -mcpu=skylake-avx512");
  EXPECT_EQ(r->config, R"({"index":193,"code_hash":null,"entity":[["tile_ic","sp",[1,3]]]})");
  EXPECT_DOUBLE_EQ(*r->mean_cost, 2.0);
  EXPECT_EQ(r->version, "0.7.dev0");
  EXPECT_EQ(r->line, kV02);
  EXPECT_EQ(r->hash, content_hash(kV02));
}

TEST(LineParserTest, AutotvmV01UsesTaskNameAndArgsAsWorkload) {
  LineParser p;
  auto r = p.parse(kV01);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->format, RecordFormat::kAutotvmV01);
  EXPECT_EQ(r->workload_key, R"(["topi_nn_conv2d",["TENSOR",[1,2048,8,8],"float32"]])");
  EXPECT_EQ(r->device.model, "titanx");
  EXPECT_EQ(r->version, "0.1");
}

TEST(LineParserTest, AnsorWorkloadKeyIsTheFirstInputString) {
  LineParser p;
  auto r = p.parse(kAnsor);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->format, RecordFormat::kAnsor);
  EXPECT_EQ(r->workload_key, R"(["matmul_add", 1024, 1024, 1024, "float32"])");
  EXPECT_EQ(r->device.key, "llvm -keys=cpu");
  EXPECT_EQ(r->config, R"([[],[["SP",2,0,1024,[2,1,4],1]]])");
}

TEST(LineParserTest, ErrorRecordsHaveNoMeanCost) {
  LineParser p;
  std::string line = kV02;
  line.replace(line.find("[[1.0, 3.0], 0,"), 15, R"([["RuntimeError"], 4,)");
  auto r = p.parse(line);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->error_no, 4);
  EXPECT_FALSE(r->mean_cost.has_value());
}

TEST(LineParserTest, MalformedLinesSayWhy) {
  LineParser p;
  EXPECT_EQ(p.parse("{\"input\": [").status().message(), "not valid JSON");
  EXPECT_EQ(p.parse("[1, 2]").status().message(), "not a JSON object");
  EXPECT_NE(p.parse("{\"x\": 1}").status().message().find("not a record"), std::string::npos);
  std::string no_cost = kV02;
  no_cost.replace(no_cost.find("[1.0, 3.0]"), 10, "[]");
  EXPECT_EQ(p.parse(no_cost).status().message(), "an error-free record has no costs");
  std::string bad_err = kV02;
  bad_err.replace(bad_err.find("3.0], 0,"), 8, "3.0], 9,");
  EXPECT_EQ(p.parse(bad_err).status().message(), "the error number is not an integer in 0..8");
}

TEST(LineParserTest, SkipsCommentsAndBlankLines) {
  EXPECT_TRUE(is_skippable_line(""));
  EXPECT_TRUE(is_skippable_line("  \r"));
  EXPECT_TRUE(is_skippable_line("# TVM downloaded this"));
  EXPECT_FALSE(is_skippable_line(kV01));
}

// A record of tensorperf's own format, of `provider`, that a test fills in further.
measure::Record native_record(const std::string& provider) {
  measure::Record rec;
  rec.workload_key = "conv2d|n1|c64";
  rec.device_key = "x86_64-avx2-fma-t2";
  rec.target = "x86-64-linux-avx2-fma";
  rec.provider = provider;
  return rec;
}

TEST(LineParserTest, NativeRecordsParseThroughTheRecordFormat) {
  measure::Record rec = native_record("halide");
  rec.config = {{"tile_x", 8}};
  rec.costs = {0.5, 1.5};
  rec.timestamp = 1700000000.25;
  LineParser p;
  auto r = p.parse(measure::record_to_line(rec));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->format, RecordFormat::kNative);
  EXPECT_EQ(r->line, measure::record_to_line(rec));
  EXPECT_EQ(r->device.key, rec.device_key);
  EXPECT_DOUBLE_EQ(*r->mean_cost, 1.0);
}

TEST(LineParserTest, NativeCostsSurviveTheRoundTripAndNeverReplaceTheCosts) {
  measure::Record rec = native_record("onednn");
  rec.costs = {0.004, 0.006};
  rec.native_costs = {0.001, 0.002, 0.0015};
  const std::string line = measure::record_to_line(rec);
  Result<measure::Record> back = measure::record_from_line(line);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->native_costs, rec.native_costs);
  EXPECT_DOUBLE_EQ(back->median_native_cost(), 0.0015);
  EXPECT_EQ(measure::record_to_line(*back), line);
  LineParser p;
  auto r = p.parse(line);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->line, line);
  EXPECT_DOUBLE_EQ(*r->mean_cost, 0.005);  // the plain costs: what every other reader ranks by

  // A record without them writes no key; a malformed one is refused.
  rec.native_costs.clear();
  EXPECT_EQ(measure::record_to_line(rec).find("native_costs"), std::string::npos);
  EXPECT_TRUE(std::isinf(rec.median_native_cost()));
  nlohmann::json j = measure::record_to_json(rec);
  j["result"]["native_costs"] = {0.001, "fast"};
  EXPECT_FALSE(measure::record_from_json(j).ok());
  j["result"]["native_costs"] = 0.001;
  EXPECT_FALSE(measure::record_from_json(j).ok());
}

TEST(LineParserTest, TheHostsClockSurvivesTheRoundTrip) {
  measure::Record rec = native_record("onednn");
  rec.costs = {0.004};
  rec.clock_mhz = 2596.122;
  const std::string line = measure::record_to_line(rec);
  Result<measure::Record> back = measure::record_from_line(line);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_DOUBLE_EQ(back->clock_mhz, 2596.122);
  EXPECT_EQ(measure::record_to_line(*back), line);
  // Not kept: no key, and 0 back; a malformed one is refused.
  rec.clock_mhz = 0;
  EXPECT_EQ(measure::record_to_line(rec).find("clock_mhz"), std::string::npos);
  EXPECT_EQ(measure::record_from_line(measure::record_to_line(rec))->clock_mhz, 0);
  nlohmann::json j = measure::record_to_json(rec);
  for (const nlohmann::json& bad : {nlohmann::json("fast"), nlohmann::json(-1.0), nlohmann::json(0)}) {
    j["result"]["clock_mhz"] = bad;
    EXPECT_FALSE(measure::record_from_json(j).ok()) << bad;
  }
}

}  // namespace
}  // namespace tensorperf::db
