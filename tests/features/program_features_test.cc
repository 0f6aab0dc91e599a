// Program features of real configs: lowering the Halide provider's configs, the knob vector of
// oneDNN's, and every zoo workload's default config.
#include "features/program_features.h"

#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "features/leaf_features.h"
#include "ir/models/zoo.h"
#include "ir/task_extraction.h"
#include "kernels/halide/halide_provider.h"
#include "test_workloads.h"

namespace tensorperf::features {
namespace {

using kernels::Config;
using kernels::testing::make_workload;

constexpr const char* kAvx2 = "x86-64-linux-avx-avx2-f16c-fma-sse41";

size_t column(const std::string& name) {
  const auto& names = pooled_feature_names();
  auto it = std::find(names.begin(), names.end(), name);
  EXPECT_NE(it, names.end()) << name;
  return static_cast<size_t>(it - names.begin());
}

// Pooled columns where a and b differ.
std::set<std::string> differing(const ProgramFeatures& a, const ProgramFeatures& b) {
  std::set<std::string> out;
  for (size_t i = 0; i < a.pooled.size(); ++i)
    if (a.pooled[i] != b.pooled[i]) out.insert(pooled_feature_names()[i]);
  return out;
}

Config relu_config(int vector_width, const std::string& parallel) {
  return Config{"halide", {{"vector_width", vector_width}, {"unroll", 1}, {"parallel", parallel}}};
}

TEST(ProgramFeatures, ParallelKnobChangesParallelColumnsNotWork) {
  ir::Workload relu = make_workload(ir::OpKind::kRelu, {{1, 16, 8, 32}});
  auto serial = program_features(relu, relu_config(8, "none"), kAvx2);
  auto parallel = program_features(relu, relu_config(8, "outer"), kAvx2);
  ASSERT_TRUE(serial.ok()) << serial.status().ToString();
  ASSERT_TRUE(parallel.ok()) << parallel.status().ToString();
  EXPECT_EQ(serial->pooled[column("hot.loop.parallel_loops")], 0);
  EXPECT_EQ(parallel->pooled[column("hot.loop.parallel_loops")], 1);
  const std::set<std::string> diff = differing(*serial, *parallel);
  EXPECT_TRUE(diff.count("config.knob2")) << "the parallel knob's own column";
  EXPECT_TRUE(diff.count("nest.parallel_tasks"));
  for (const char* same : {"hot.ops.flops", "hot.ops.float_cmp", "nest.flops", "hot.buffer.b0_unique_bytes",
                           "hot.loop.vector_lanes", "workload.log2_flops"})
    EXPECT_FALSE(diff.count(same)) << same;
}

TEST(ProgramFeatures, VectorWidthKnobChangesLanesNotWork) {
  ir::Workload relu = make_workload(ir::OpKind::kRelu, {{1, 16, 8, 32}});
  auto v4 = program_features(relu, relu_config(4, "none"), kAvx2);
  auto v8 = program_features(relu, relu_config(8, "none"), kAvx2);
  ASSERT_TRUE(v4.ok() && v8.ok());
  EXPECT_FLOAT_EQ(v4->pooled[column("hot.loop.vector_lanes")], std::log2(5.0f));
  EXPECT_FLOAT_EQ(v8->pooled[column("hot.loop.vector_lanes")], std::log2(9.0f));
  // Twice the lanes, half the iterations; the same element work and bytes.
  EXPECT_FLOAT_EQ(v4->pooled[column("hot.loop.executions")], std::log2(1.0f + 1024));
  EXPECT_FLOAT_EQ(v8->pooled[column("hot.loop.executions")], std::log2(1.0f + 512));
  EXPECT_FLOAT_EQ(v4->pooled[column("hot.ops.float_cmp")], v8->pooled[column("hot.ops.float_cmp")]);
  EXPECT_FLOAT_EQ(v4->pooled[column("hot.buffer.b0_unique_bytes")], v8->pooled[column("hot.buffer.b0_unique_bytes")]);
  EXPECT_NE(v4->pooled[column("config.knob0")], v8->pooled[column("config.knob0")]);
}

TEST(ProgramFeatures, OneDnnConfigsAreKnobSamples) {
  ir::Workload conv = make_workload(ir::OpKind::kConv2d, {{1, 16, 8, 8}, {32, 16, 3, 3}, {32}},
                                    ir::Attrs().set("pads", std::vector<int64_t>{1, 1, 1, 1}));
  auto f = program_features(conv, Config{"onednn", {{"format", "nhwc"}, {"algorithm", "direct"}}});
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->kind, SampleKind::kKnobs);
  EXPECT_TRUE(f->leaves.empty());
  EXPECT_EQ(f->pooled.size(), pooled_feature_names().size());
  EXPECT_EQ(f->pooled[column("is_loop_nest")], 0);
  EXPECT_EQ(f->pooled[column("config.provider_onednn")], 1);
  EXPECT_EQ(f->pooled[column("config.knob0")], 3);  // "nhwc", third of the format values
  EXPECT_GT(f->pooled[column("workload.log2_flops")], 0);
  EXPECT_EQ(f->pooled[column("nest.flops")], 0);
  // Sizes and ratios: 16x8x8 floats in, 32x16x3x3 weights, 32x8x8 out.
  const double in = 4.0 * 16 * 64, weights = 4.0 * 32 * 16 * 9, out = 4.0 * 32 * 64;
  EXPECT_FLOAT_EQ(f->pooled[column("workload.log2_in0_bytes")], static_cast<float>(std::log2(1 + in)));
  EXPECT_FLOAT_EQ(f->pooled[column("workload.log2_in1_bytes")], static_cast<float>(std::log2(1 + weights)));
  EXPECT_FLOAT_EQ(f->pooled[column("workload.log2_out_bytes")], static_cast<float>(std::log2(1 + out)));
  EXPECT_FLOAT_EQ(f->pooled[column("workload.log2_flops_per_byte")],
                  static_cast<float>(std::log2(1 + conv.flops() / (in + weights + out))));
  EXPECT_FLOAT_EQ(f->pooled[column("workload.log2_flops_per_output")],
                  static_cast<float>(std::log2(1 + conv.flops() / (32 * 64))));

  auto h = program_features(conv, kernels::halide::halide_provider().default_config(conv), kAvx2);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->kind, SampleKind::kLoopNest);
  EXPECT_EQ(h->pooled[column("workload.log2_flops")], f->pooled[column("workload.log2_flops")]);
}

TEST(ProgramFeatures, BadConfigsAreClearErrors) {
  ir::Workload relu = make_workload(ir::OpKind::kRelu, {{1, 16, 8, 32}});
  auto bad = program_features(relu, Config{"halide", {{"vector_width", 8}}});
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument) << bad.status().ToString();
  auto unknown = program_features(relu, Config{"cuda", {}});
  EXPECT_FALSE(unknown.ok());
}

// Halide 14's simplifier crashes lowering this valid schedule with pinned sizes (the measurement
// compile, which pins none, runs it): the crash is this program's error, and the process goes on.
TEST(ProgramFeatures, AHalideCrashWhileLoweringIsAnErrorNotACrash) {
  auto w = ir::parse_workload_key(
      "conv2d|float32[1,256,14,14];float32[256,256,3,3]|dilations=[1,1];groups=1;pads=[1,1,1,1];strides=[1,1]|"
      "bias+relu");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const Config crashing{"halide", nlohmann::json::parse(R"({"compute_at":"row","layout":"nchw","oc_block":1,
      "pad":"row","pad_tasks":2,"parallel":"rows","rc_block":64,"reduce_order":"k_c","strip":4,"tail":"guard",
      "tile_x":16,"tile_y":2,"unroll":0,"vector_width":4})")};
  auto f = program_features(*w, crashing, kAvx2);
  if (!f.ok()) {
    EXPECT_EQ(f.status().code(), StatusCode::kInternal) << f.status().ToString();
    EXPECT_NE(f.status().message().find("crashed in Halide"), std::string::npos) << f.status().ToString();
  }
  // The next program lowers as before, and the same in the worker as in this process.
  Config fine = crashing;
  fine.knobs["strip"] = 2;
  auto next = program_features(*w, fine, kAvx2);
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  auto nest = kernels::lower(*w, fine, kAvx2);
  ASSERT_TRUE(nest.ok()) << nest.status().ToString();
  const ProgramFeatures here = loop_nest_features(*nest);
  EXPECT_EQ(next->leaves, here.leaves);
  EXPECT_EQ(next->positions.size(), here.positions.size());
  for (size_t i = 0; i < here.positions.size(); ++i) {
    EXPECT_EQ(next->positions[i].preorder, here.positions[i].preorder);
    EXPECT_EQ(next->positions[i].depth, here.positions[i].depth);
    EXPECT_EQ(next->positions[i].parent_preorder, here.positions[i].parent_preorder);
  }
  EXPECT_EQ(next->kind, SampleKind::kLoopNest);
}

// Many programs at once: the same features as one at a time, and a crash in the middle costs only
// the program it happened on (the next worker resumes after it).
TEST(ProgramFeatures, ABatchGoesOnAfterACrash) {
  auto w = ir::parse_workload_key(
      "conv2d|float32[1,256,14,14];float32[256,256,3,3]|dilations=[1,1];groups=1;pads=[1,1,1,1];strides=[1,1]|"
      "bias+relu");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const nlohmann::json knobs = nlohmann::json::parse(R"({"compute_at":"row","layout":"nchw","oc_block":1,
      "pad":"row","pad_tasks":2,"parallel":"rows","rc_block":64,"reduce_order":"k_c","strip":4,"tail":"guard",
      "tile_x":16,"tile_y":2,"unroll":0,"vector_width":4})");
  std::vector<ProgramRef> programs;
  for (int strip : {2, 4, 7, 1}) {
    nlohmann::json k = knobs;
    k["strip"] = strip;
    programs.push_back({*w, Config{"halide", k}, kAvx2});
  }
  programs.push_back({*w, Config{"halide", {{"vector_width", 3}}}, kAvx2});  // invalid
  programs.push_back({*w, Config{"onednn", {}}, kAvx2});
  std::vector<Result<ProgramFeatures>> batch = program_features(programs);
  ASSERT_EQ(batch.size(), programs.size());
  for (size_t i = 0; i < programs.size(); ++i) {
    Result<ProgramFeatures> one = program_features(programs[i].workload, programs[i].config, programs[i].target);
    ASSERT_EQ(batch[i].ok(), one.ok()) << i << ": " << batch[i].status().ToString() << " / " << one.status().ToString();
    if (!one.ok()) {
      EXPECT_EQ(batch[i].status().code(), one.status().code()) << i;
      continue;
    }
    EXPECT_EQ(batch[i]->pooled, one->pooled) << i;
    EXPECT_EQ(batch[i]->leaves, one->leaves) << i;
  }
  // Every Halide program after the crashing one (strip 4) was lowered.
  EXPECT_TRUE(batch[0].ok() && batch[2].ok() && batch[3].ok());
  EXPECT_EQ(batch[4].status().code(), StatusCode::kInvalidArgument) << batch[4].status().ToString();
}

// Every distinct workload of the zoo's models has features for its default Halide config (or its
// oneDNN default where Halide has no template), with the work where the workload says.
TEST(ProgramFeatures, EveryZooWorkloadDefaultConfig) {
  std::set<std::string> seen;
  int lowered = 0;
  for (const ir::ModelInfo& info : ir::zoo_models()) {
    auto graph = ir::build_model(info.name);
    ASSERT_TRUE(graph.ok()) << info.name;
    auto tasks = ir::extract_tasks(*graph);
    ASSERT_TRUE(tasks.ok()) << info.name;
    for (const ir::Task& t : *tasks) {
      if (!seen.insert(t.workload.key()).second) continue;
      const kernels::Provider& halide = kernels::halide::halide_provider();
      Config c = halide.supports(t.workload) ? halide.default_config(t.workload) : Config{"onednn", {}};
      if (c.provider == "onednn") {
        auto p = kernels::find_provider("onednn");
        ASSERT_TRUE(p.ok());
        c = (*p)->default_config(t.workload);
      }
      auto f = program_features(t.workload, c, kAvx2);
      ASSERT_TRUE(f.ok()) << t.workload.key() << ": " << f.status().ToString();
      ASSERT_EQ(f->pooled.size(), pooled_feature_names().size());
      if (f->kind != SampleKind::kLoopNest) continue;
      ++lowered;
      EXPECT_FALSE(f->leaves.empty()) << t.workload.key();
      for (const auto& row : f->leaves) ASSERT_EQ(row.size(), leaf_feature_names().size());
      if (t.workload.op == ir::OpKind::kConv2d || t.workload.op == ir::OpKind::kDense) {
        EXPECT_GE(f->pooled[column("nest.flops")], std::log2(1.0 + t.workload.flops()) - 0.01) << t.workload.key();
      }
    }
  }
  EXPECT_GT(lowered, 50);
}

}  // namespace
}  // namespace tensorperf::features
