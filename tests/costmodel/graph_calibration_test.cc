#include "costmodel/graph_calibration.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace tensorperf::costmodel {
namespace {

const char* kConv =
    "conv2d|float32[1,64,56,56];float32[64,64,3,3]|dilations=[1,1];groups=1;pads=[1,1,1,1];strides=[1,1]|bias+relu";
const char* kDepthwise =
    "conv2d|float32[1,32,112,112];float32[32,1,3,3]|dilations=[1,1];groups=32;pads=[1,1,1,1];strides=[1,1]|bias+relu";
const char* kAdd = "add|float32[1,64,56,56];float32[1,64,56,56]||";
const char* kPool =
    "max_pool2d|float32[1,64,112,112]|ceil_mode=0;dilations=[1,1];kernel=[3,3];pads=[1,1,1,1];strides=[2,2]|";
const char* kDense = "dense|float32[1,512];float32[1000,512]||bias";

nlohmann::json op(const char* workload, int64_t count, double predicted_ms, double measured_ms, double chained = 0) {
  return {{"workload", workload},       {"count", count},           {"predicted_ms", predicted_ms},
          {"measured_ms", measured_ms}, {"chained_share", chained}, {"provider", "onednn"}};
}

// A `predict --compare --json` output: the whole run takes `overhead` times its kernels' sum.
nlohmann::json comparison(const std::string& model, std::vector<nlohmann::json> ops, double overhead = 1.0,
                          const std::string& device = "dev", const std::string& id = "m1") {
  double kernels = 0;
  for (const auto& o : ops) kernels += o["measured_ms"].get<double>() * o["count"].get<double>();
  return {{"model", model},
          {"batch", 1},
          {"device", device},
          {"cost_model_id", id},
          {"ops", ops},
          {"copies", nlohmann::json::array()},
          {"measured_ms", kernels * overhead},
          {"predicted_ms", 1.0}};
}

GraphComparison parse(const nlohmann::json& j) {
  auto c = comparison_from_predict_json(j, "test.json");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return *c;
}

TEST(GraphCalibration, ClassesFollowTheOperatorAndItsChain) {
  auto w = [](const char* key) { return *ir::parse_workload_key(key); };
  EXPECT_EQ(calibration_class(w(kConv), 0), "conv");
  EXPECT_EQ(calibration_class(w(kConv), 1), "conv:chained");
  EXPECT_EQ(calibration_class(w(kConv), 0.4), "conv");
  EXPECT_EQ(calibration_class(w(kDepthwise), 0.5), "depthwise:chained");
  EXPECT_EQ(calibration_class(w(kAdd), 0), "elementwise");
  EXPECT_EQ(calibration_class(w(kPool), 1), "pool:chained");
  EXPECT_EQ(calibration_class(w(kDense), 0), "dense");
  EXPECT_EQ(calibration_fallbacks("pool:chained"),
            (std::vector<std::string>{"pool:chained", "pool", "elementwise", "all"}));
  EXPECT_EQ(calibration_fallbacks("depthwise"), (std::vector<std::string>{"depthwise", "conv", "all"}));
  EXPECT_EQ(copy_class("concat"), "copy concat");
  EXPECT_EQ(calibration_fallbacks("copy concat"), (std::vector<std::string>{"copy concat", "copy"}));
}

TEST(GraphCalibration, ConvolutionsOfFewFlopsPerByteAreLean) {
  auto w = [](const char* key) { return *ir::parse_workload_key(key); };
  // MobileNet-V2's expansion at batch 8: 0.31 GFLOP over 6 MB read and 38 MB written, 6.9 per byte.
  const char* expand =
      "conv2d|float32[8,16,112,112];float32[96,16,1,1]|dilations=[1,1];groups=1;pads=[0,0,0,0];strides=[1,1]|bias+relu6";
  EXPECT_EQ(calibration_class(w(expand), 1), "conv-lean:chained");
  EXPECT_EQ(calibration_class(w(expand), 0), "conv-lean");
  // The same layer from 64 channels: 1.2 GFLOP over 64 MB, 19 per byte.
  const char* wide =
      "conv2d|float32[8,64,112,112];float32[96,64,1,1]|dilations=[1,1];groups=1;pads=[0,0,0,0];strides=[1,1]|bias+relu6";
  EXPECT_EQ(calibration_class(w(wide), 1), "conv:chained");
  EXPECT_EQ(calibration_class(w(kConv), 1), "conv:chained");  // a 3x3 of 64 channels: compute-bound
  EXPECT_EQ(calibration_fallbacks("conv-lean:chained"),
            (std::vector<std::string>{"conv-lean:chained", "conv-lean", "conv", "all"}));
}

TEST(GraphCalibration, ProductsOfManyRowsAreGemmsNotDenseLayers) {
  auto w = [](const char* key) { return *ir::parse_workload_key(key); };
  // A CNN's classifier at batch 8 streams its weights; a transformer's layer (8 x 128 rows) reuses them.
  EXPECT_EQ(calibration_class(w("dense|float32[8,4096];float32[1000,4096]||bias"), 0), "dense");
  EXPECT_EQ(calibration_class(w("dense|float32[31,768];float32[768,768]||bias"), 0), "dense");
  EXPECT_EQ(calibration_class(w("dense|float32[32,768];float32[768,768]||bias"), 0), "gemm");
  EXPECT_EQ(calibration_class(w("dense|float32[8,128,768];float32[3072,768]||bias+gelu"), 0), "gemm");
  // Attention's products: the smaller side counts, transposes read.
  EXPECT_EQ(calibration_class(w("batch_matmul|float32[8,12,128,64];float32[8,12,128,64]|transpose_a=0;"
                                "transpose_b=1|"),
                              0),
            "gemm");
  EXPECT_EQ(calibration_class(w("batch_matmul|float32[8,12,128,64];float32[8,12,64,8]|transpose_a=0;"
                                "transpose_b=0|"),
                              0),
            "dense");
  EXPECT_EQ(calibration_class(w("batch_matmul|float32[8,12,64,4];float32[8,12,64,128]|transpose_a=1;"
                                "transpose_b=0|"),
                              0),
            "dense");
  EXPECT_EQ(calibration_class(w("dense|float32[8,128,768];float32[768,768]||bias"), 1), "gemm:chained");
  // Without products of its own a gemm takes every kernel's fit, never the weight streams'.
  EXPECT_EQ(calibration_fallbacks("gemm"), (std::vector<std::string>{"gemm", "all"}));
  EXPECT_EQ(calibration_fallbacks("gemm:chained"), (std::vector<std::string>{"gemm:chained", "gemm", "all"}));
}

TEST(GraphCalibration, RecoversAKnownFactorAndAddedTimePerClass) {
  // Chained convolutions run 1.2x their prediction plus 8 us each; element-wise ops 1.5x and
  // nothing added; kernels of several lengths in three runs. Whole runs 1.05x their kernels.
  auto conv = [](int64_t n, double p) { return op(kConv, n, p, 1.2 * p + 0.008, 1); };
  auto add = [](int64_t n, double p) { return op(kAdd, n, p, 1.5 * p); };
  std::vector<GraphComparison> cs = {
      parse(comparison("a", {conv(4, 1.0), conv(2, 0.02), add(2, 0.1)}, 1.05)),
      parse(comparison("b", {conv(1, 0.3), add(3, 0.01)}, 1.05)),
      parse(comparison("c", {conv(2, 5.0), add(1, 0.4), op(kDense, 1, 2.0, 1.0)}, 1.05)),
  };
  auto cal = GraphCalibration::fit(cs, 2);
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  const CalibrationFit* c = cal->fit_for("conv:chained");
  ASSERT_NE(c, nullptr);
  EXPECT_NEAR(c->factor, 1.2, 1e-9);
  EXPECT_NEAR(c->added_s, 8e-6, 1e-12);
  EXPECT_EQ(c->models, 3);
  EXPECT_EQ(c->instances, 9);
  EXPECT_NEAR(cal->seconds("conv:chained", 2e-3), 1.2 * 2e-3 + 8e-6, 1e-12);
  EXPECT_NEAR(cal->fit_for("elementwise")->factor, 1.5, 1e-9);
  EXPECT_NEAR(cal->fit_for("elementwise")->added_s, 0, 1e-12);
  EXPECT_NEAR(cal->overhead(), 1.05, 1e-9);
  // dense is in one run only: below --min-models, it falls back to every kernel's fit.
  EXPECT_EQ(cal->fits().count("dense"), 0u);
  EXPECT_EQ(cal->fit_source("dense"), "all");
  // A pool falls back to element-wise ops; an unchained convolution to every kernel.
  EXPECT_EQ(cal->fit_source("pool:chained"), "elementwise");
  EXPECT_EQ(cal->fit_source("conv"), "all");
  // No copies were timed: a copy keeps its prediction.
  EXPECT_EQ(cal->fit_for(copy_class("concat")), nullptr);
  EXPECT_EQ(cal->seconds(copy_class("concat"), 1e-3), 1e-3);
  // With one run enough, dense has its own (one length: the factor alone).
  auto loose = GraphCalibration::fit(cs, 1);
  ASSERT_TRUE(loose.ok());
  EXPECT_NEAR(loose->fit_for("dense")->factor, 0.5, 1e-9);
  EXPECT_EQ(loose->fit_for("dense")->added_s, 0);
}

TEST(GraphCalibration, EachBatchSizeGetsFitsOfItsOwnRuns) {
  // Dense layers run 0.8x their prediction at batch 1 and 1.2x at batch 8; convolutions 1.1x at both.
  // One factor for both batches would miss both; each batch's own fits recover them.
  auto at = [](const std::string& model, int64_t batch, double dense_factor, double overhead) {
    nlohmann::json j = comparison(model, {op(kConv, 2, 1.0, 1.1), op(kDense, 1, 2.0, 2.0 * dense_factor)}, overhead);
    j["batch"] = batch;
    return parse(j);
  };
  std::vector<GraphComparison> cs = {at("a", 1, 0.8, 1.02), at("b", 1, 0.8, 1.02), at("a", 8, 1.2, 1.10),
                                     at("b", 8, 1.2, 1.10), at("c", 8, 1.2, 1.10)};
  auto cal = GraphCalibration::fit(cs, 2);
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  ASSERT_EQ(cal->batch_fits().size(), 2u);
  EXPECT_EQ(cal->batch(), 0);
  const double pooled = cal->fit_for("dense")->factor;
  EXPECT_GT(pooled, 0.85);
  EXPECT_LT(pooled, 1.15);
  const GraphCalibration b1 = cal->for_batch(1);
  EXPECT_EQ(b1.batch(), 1);
  EXPECT_NEAR(b1.fit_for("dense")->factor, 0.8, 1e-9);
  EXPECT_EQ(b1.fit_source("dense"), "dense@b1");
  EXPECT_NEAR(b1.overhead(), 1.02, 1e-9);
  const GraphCalibration b8 = cal->for_batch(8);
  EXPECT_NEAR(b8.fit_for("dense")->factor, 1.2, 1e-9);
  EXPECT_NEAR(b8.fit_for("conv")->factor, 1.1, 1e-9);
  EXPECT_NEAR(b8.overhead(), 1.10, 1e-9);
  // Nearest in ratio (the geometric midpoint of 1 and 8 is 2.83): 2 nearest 1, 3 and 16 nearest 8.
  EXPECT_EQ(cal->for_batch(2).batch(), 1);
  EXPECT_EQ(cal->for_batch(3).batch(), 8);
  EXPECT_EQ(cal->for_batch(16).batch(), 8);
  auto tie = GraphCalibration::fit({at("a", 1, 0.8, 1.0), at("b", 1, 0.8, 1.0), at("a", 4, 1.2, 1.0),
                                    at("b", 4, 1.2, 1.0)}, 2);
  ASSERT_TRUE(tie.ok());
  EXPECT_EQ(tie->for_batch(2).batch(), 1);  // as near to 1 as to 4: the smaller
  // A class no run of the batch has falls back within the batch first ("all" of batch 8), and a
  // copy, which no batch-1 run made, to the pooled fits.
  EXPECT_EQ(b8.fit_source("pool"), "all@b8");
  nlohmann::json with_copy = comparison("d", {op(kConv, 1, 1.0, 1.1)});
  with_copy["copies"] = {{{"op", "concat"}, {"count", 1}, {"predicted_ms", 1.0}, {"measured_ms", 2.0}}};
  with_copy["batch"] = 8;
  nlohmann::json with_copy2 = with_copy;
  with_copy2["model"] = "e";
  cs.push_back(parse(with_copy));
  cs.push_back(parse(with_copy2));
  auto cal2 = GraphCalibration::fit(cs, 2);
  ASSERT_TRUE(cal2.ok());
  EXPECT_EQ(cal2->for_batch(1).fit_source(copy_class("concat")), "copy concat");
  EXPECT_EQ(cal2->for_batch(8).fit_source(copy_class("concat")), "copy concat@b8");
  // Runs of one batch size only: the pooled fits, nothing per batch.
  auto one = GraphCalibration::fit({at("a", 8, 1.2, 1.1), at("b", 8, 1.2, 1.1)}, 2);
  ASSERT_TRUE(one.ok());
  EXPECT_TRUE(one->batch_fits().empty());
  EXPECT_EQ(one->for_batch(8).batch(), 0);
  EXPECT_NEAR(one->for_batch(8).fit_for("dense")->factor, 1.2, 1e-9);
  // A batch with fewer runs than min_models has no fits of its own.
  auto few = GraphCalibration::fit({at("a", 1, 0.8, 1.0), at("a", 8, 1.2, 1.1), at("b", 8, 1.2, 1.1)}, 2);
  ASSERT_TRUE(few.ok());
  EXPECT_EQ(few->batch_fits().count(1), 0u);
  EXPECT_EQ(few->for_batch(1).batch(), 8);
}

TEST(GraphCalibration, TheAddedTimeIsNeverNegative) {
  // Kernels that run 0.9x their prediction minus 5 us: a fit with a negative added time would
  // predict a negative time for the shortest kernels; the factor alone is fitted instead.
  std::vector<GraphComparison> cs;
  for (const char* m : {"a", "b"})
    cs.push_back(parse(comparison(m, {op(kAdd, 1, 0.01, 0.9 * 0.01 - 0.005), op(kAdd, 1, 1.0, 0.9 - 0.005)})));
  auto cal = GraphCalibration::fit(cs);
  ASSERT_TRUE(cal.ok());
  const CalibrationFit* f = cal->fit_for("elementwise");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->added_s, 0);
  // Weighted by count / measured: sum(p m / m) / sum(p^2 / m) over both runs.
  const double p1 = 1e-5, m1 = 0.9 * p1 - 5e-6, p2 = 1e-3, m2 = 0.9 * p2 - 5e-6;
  EXPECT_NEAR(f->factor, (p1 + p2) / (p1 * p1 / m1 + p2 * p2 / m2), 1e-9);
  EXPECT_GT(cal->seconds("elementwise", 1e-6), 0);
}

TEST(GraphCalibration, CopiesHaveFitsPerOpAndStayOutOfTheKernels) {
  auto with_copies = [](const std::string& model, double transpose_ms) {
    nlohmann::json j = comparison(model, {op(kConv, 1, 1.0, 1.0)});
    j["copies"] = {{{"op", "concat"}, {"count", 2}, {"predicted_ms", 0.2}, {"measured_ms", 0.1}},
                   {{"op", "transpose"}, {"count", 1}, {"predicted_ms", 1.0}, {"measured_ms", transpose_ms}},
                   // A concat the run placed in its output: nothing timed, nothing learned.
                   {{"op", "concat"}, {"count", 1}, {"predicted_ms", 5.0}, {"measured_ms", 0.0}}};
    j["measured_ms"] = 1.0 + 0.2 + transpose_ms;
    return j;
  };
  auto cal = GraphCalibration::fit({parse(with_copies("a", 1.2)), parse(with_copies("b", 1.2))});
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  EXPECT_NEAR(cal->seconds(copy_class("concat"), 1e-3), 0.5e-3, 1e-12);
  EXPECT_NEAR(cal->seconds(copy_class("transpose"), 1e-3), 1.2e-3, 1e-12);
  EXPECT_EQ(cal->fit_source(copy_class("slice")), "copy");
  EXPECT_NEAR(cal->seconds("conv:chained", 1e-3), 1e-3, 1e-12);  // "all": the kernels only
  EXPECT_NEAR(cal->overhead(), 1.0, 1e-9);
}

TEST(GraphCalibration, APredictionMadeWithACalibrationIsRefittedFromItsUncalibratedFigures) {
  nlohmann::json a = comparison("a", {op(kConv, 1, 1.0, 1.3)});
  a["ops"][0]["predicted_uncalibrated_ms"] = 1.0;
  a["ops"][0]["predicted_ms"] = 1.3;  // already calibrated
  nlohmann::json b = comparison("b", {op(kConv, 1, 2.0, 2.6)});
  auto cal = GraphCalibration::fit({parse(a), parse(b)}, 2);
  ASSERT_TRUE(cal.ok());
  EXPECT_NEAR(cal->fit_for("conv")->factor, 1.3, 1e-9);
  EXPECT_NEAR(cal->fit_for("conv")->added_s, 0, 1e-12);
}

TEST(GraphCalibration, SaveLoadRoundTripGivesTheSameFactors) {
  nlohmann::json a = comparison("a", {op(kConv, 2, 1.0, 1.1), op(kAdd, 1, 0.1, 0.2)}, 1.1);
  nlohmann::json b = comparison("b", {op(kConv, 1, 1.0, 1.3), op(kAdd, 1, 0.1, 0.3)}, 1.2);
  a["cold_reads"] = b["cold_reads"] = true;
  auto cal = GraphCalibration::fit({parse(a), parse(b)});
  ASSERT_TRUE(cal.ok());
  EXPECT_TRUE(cal->cold_reads());
  const std::string path = (std::filesystem::temp_directory_path() / "tp_graph_calibration_test.json").string();
  ASSERT_TRUE(cal->save(path).ok());
  auto back = GraphCalibration::load(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  for (const char* cls : {"conv", "elementwise", "all", "pool:chained", "dense"}) {
    EXPECT_EQ(back->fit_source(cls), cal->fit_source(cls)) << cls;
    EXPECT_DOUBLE_EQ(back->seconds(cls, 1e-3), cal->seconds(cls, 1e-3)) << cls;
  }
  EXPECT_DOUBLE_EQ(back->overhead(), cal->overhead());
  // With fits per batch: the same fits per batch after a round trip.
  nlohmann::json a8 = a, b8 = b;
  a8["batch"] = b8["batch"] = 8;
  a8["ops"][0]["measured_ms"] = 1.6;
  auto batched = GraphCalibration::fit({parse(a), parse(b), parse(a8), parse(b8)});
  ASSERT_TRUE(batched.ok());
  ASSERT_EQ(batched->batch_fits().size(), 2u);
  ASSERT_TRUE(batched->save(path).ok());
  auto batched_back = GraphCalibration::load(path);
  ASSERT_TRUE(batched_back.ok()) << batched_back.status().message();
  for (int64_t batch : {1, 8, 3})
    for (const char* cls : {"conv", "elementwise", "pool:chained"}) {
      EXPECT_EQ(batched_back->for_batch(batch).fit_source(cls), batched->for_batch(batch).fit_source(cls)) << cls;
      EXPECT_DOUBLE_EQ(batched_back->for_batch(batch).seconds(cls, 1e-3), batched->for_batch(batch).seconds(cls, 1e-3))
          << cls << " at batch " << batch;
      EXPECT_DOUBLE_EQ(batched_back->for_batch(batch).overhead(), batched->for_batch(batch).overhead());
    }
  EXPECT_NE(batched->for_batch(8).seconds("conv", 1e-3), batched->for_batch(1).seconds("conv", 1e-3));
  EXPECT_EQ(back->device(), "dev");
  EXPECT_EQ(back->cost_model_id(), "m1");
  EXPECT_TRUE(back->cold_reads());
  EXPECT_EQ(back->models(), (std::vector<std::string>{"a b1", "b b1"}));
  // Another version is refused with a message that says what to do.
  nlohmann::json j = cal->to_json();
  j["version"] = 99;
  std::ofstream(path) << j.dump();
  auto old = GraphCalibration::load(path);
  ASSERT_FALSE(old.ok());
  EXPECT_NE(old.status().message().find("calibrate again"), std::string::npos) << old.status().message();
  std::ofstream(path) << "{\"format\": \"tensorperf-cost-model\"}";
  EXPECT_FALSE(GraphCalibration::load(path).ok());
  std::filesystem::remove(path);
}

TEST(GraphCalibration, MixedDevicesOrCostModelsAndRunlessPredictionsAreRefused) {
  auto mixed_device = GraphCalibration::fit(
      {parse(comparison("a", {op(kConv, 1, 1, 1)})), parse(comparison("b", {op(kConv, 1, 1, 1)}, 1, "other"))});
  ASSERT_FALSE(mixed_device.ok());
  EXPECT_NE(mixed_device.status().message().find("one device"), std::string::npos);
  auto mixed_model = GraphCalibration::fit(
      {parse(comparison("a", {op(kConv, 1, 1, 1)})), parse(comparison("b", {op(kConv, 1, 1, 1)}, 1, "dev", "m2"))});
  ASSERT_FALSE(mixed_model.ok());
  EXPECT_NE(mixed_model.status().message().find("different cost models"), std::string::npos);
  EXPECT_FALSE(GraphCalibration::fit({}).ok());
  // Predictions with the reads from memory and without (a file from before it was
  // counted has no cold_reads: without).
  nlohmann::json streamed = comparison("b", {op(kConv, 1, 1, 1)});
  streamed["cold_reads"] = true;
  auto mixed_stream = GraphCalibration::fit({parse(comparison("a", {op(kConv, 1, 1, 1)})), parse(streamed)});
  ASSERT_FALSE(mixed_stream.ok());
  EXPECT_NE(mixed_stream.status().message().find("--no-cold-reads"), std::string::npos)
      << mixed_stream.status().message();

  nlohmann::json predicted_only = comparison("a", {op(kConv, 1, 1, 1)});
  predicted_only.erase("measured_ms");
  auto c = comparison_from_predict_json(predicted_only, "p.json");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("p.json"), std::string::npos);
  EXPECT_NE(c.status().message().find("--compare"), std::string::npos);
  nlohmann::json bad_key = comparison("a", {op("conv2d|nonsense", 1, 1, 1)});
  EXPECT_FALSE(comparison_from_predict_json(bad_key, "k.json").ok());
  nlohmann::json bad_copy = comparison("a", {op(kConv, 1, 1, 1)});
  bad_copy["copies"] = {{{"op", "concat"}, {"count", "two"}, {"predicted_ms", 0.1}, {"measured_ms", 0.1}}};
  auto c2 = comparison_from_predict_json(bad_copy, "c.json");
  ASSERT_FALSE(c2.ok());
  EXPECT_NE(c2.status().message().find("layout copy"), std::string::npos) << c2.status().message();
}

}  // namespace
}  // namespace tensorperf::costmodel
