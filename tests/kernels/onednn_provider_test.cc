// Every point of the oneDNN provider's (small) space on every workload it supports, against the
// reference; and the ops it declines.
#include <gtest/gtest.h>

#include <oneapi/dnnl/dnnl.h>

#include <random>
#include <sstream>
#include <string>

#include "kernels/native_io.h"
#include "kernels/provider.h"
#include "test_workloads.h"

namespace tensorperf::kernels {
namespace {


TEST(OnednnProvider, EveryConfigMatchesReference) {
  const Provider& p = *find_provider("onednn").value();
  std::mt19937_64 rng(5);
  int checked = 0;
  for (const ir::Workload& w : testing::coverage_workloads()) {
    if (!p.supports(w)) continue;
    for (const Config& c : p.space(w).enumerate("onednn")) {
      auto kernel = p.compile(w, c, CompileOptions{"host", 2});
      if (!kernel.ok()) {
        // ceil-mode average pooling with padding counted is the one documented refusal.
        EXPECT_EQ(kernel.status().code(), StatusCode::kUnsupported) << w.key() << " " << c.knobs.dump() << ": "
                                                                   << kernel.status().message();
        continue;
      }
      std::vector<HostTensor> inputs = testing::random_inputs(w, rng);
      HostTensor out(w.output), expected(w.output);
      ASSERT_TRUE(kernel.value()->run(testing::pointers(inputs), out).ok());
      ASSERT_TRUE(kernel.value()->run(testing::pointers(inputs), out).ok());
      ASSERT_TRUE(run_reference(w, testing::pointers(inputs), expected).ok());
      EXPECT_LE(max_scaled_error(out, expected), 1.0) << w.key() << " " << c.knobs.dump();
      ++checked;
    }
  }
  EXPECT_GE(checked, 20);
}

// A run executes primitives and makes none: the reorders between the caller's plain layout and the
// primitive's blocked one are made with the kernel. Making a primitive costs microseconds even from
// oneDNN's cache, which a measurement of a small kernel would otherwise count on every run. oneDNN's verbose mode
// (level 2) prints a line for every primitive made ("create") and run ("exec").
TEST(OnednnProvider, RunsMakeNoPrimitives) {
  const Provider& p = *find_provider("onednn").value();
  std::mt19937_64 rng(7);
  int with_reorders = 0;
  for (const ir::Workload& w : testing::coverage_workloads()) {
    if (!p.supports(w)) continue;
    for (const Config& c : p.space(w).enumerate("onednn")) {
      auto kernel = p.compile(w, c, CompileOptions{"host", 2});
      if (!kernel.ok()) continue;
      std::vector<HostTensor> inputs = testing::random_inputs(w, rng);
      HostTensor out(w.output);
      ASSERT_TRUE(kernel.value()->run(testing::pointers(inputs), out).ok());  // packs the weights
      ::testing::internal::CaptureStdout();
      ASSERT_EQ(dnnl_set_verbose(2), dnnl_success);
      Status s1 = kernel.value()->run(testing::pointers(inputs), out);
      Status s2 = kernel.value()->run(testing::pointers(inputs), out);
      dnnl_set_verbose(0);
      const std::string log = ::testing::internal::GetCapturedStdout();
      ASSERT_TRUE(s1.ok() && s2.ok()) << s1.ToString() << " " << s2.ToString();
      int creates = 0, execs = 0;
      std::istringstream lines(log);
      for (std::string line; std::getline(lines, line);) {
        // "onednn_verbose,..." (2.x) or "dnnl_verbose,..." (1.x)
        if (line.find("_verbose,create") != std::string::npos) ++creates;
        if (line.find("_verbose,exec") != std::string::npos) ++execs;
      }
      EXPECT_EQ(creates, 0) << w.key() << " " << c.knobs.dump() << "\n" << log;
      EXPECT_GE(execs, 2) << w.key() << " " << c.knobs.dump() << ": no verbose output\n" << log;
      if (execs > 2) ++with_reorders;  // more than the primitive itself ran
    }
  }
  EXPECT_GE(with_reorders, 5);  // the check covered kernels that convert layouts
}

// The layout a kernel is expected to keep (without compiling) against the layouts the compiled
// kernel names: a plain estimate means a kernel without a native output, and a native one a native
// output.
TEST(OnednnProvider, ExpectedNativeLayoutsMatchTheCompiledKernels) {
  const Provider& p = *find_provider("onednn").value();
  const Provider& halide = *find_provider("halide").value();
  int native = 0, plain = 0, adopting = 0;
  for (const ir::Workload& w : testing::coverage_workloads()) {
    if (halide.supports(w)) {
      EXPECT_EQ(halide.expected_native_layout(w, halide.default_config(w)), "");
    }
    if (!p.supports(w)) continue;
    for (const Config& c : p.space(w).enumerate("onednn")) {
      auto kernel = p.compile(w, c, CompileOptions{"host", 1});
      if (!kernel.ok()) continue;
      const std::string expected = p.expected_native_layout(w, c);
      if (expected == "onednn:adopt") {  // a pool: whatever layout its producer writes
        EXPECT_GE((**kernel).alternative_input_layouts(0).size(), 2u) << w.key() << " " << c.knobs.dump();
        ++adopting;
        continue;
      }
      const bool has = !(**kernel).native_output_layout().key.empty();
      EXPECT_EQ(has, !expected.empty()) << w.key() << " " << c.knobs.dump() << " expected '" << expected << "'";
      if (has) {
        EXPECT_EQ((**kernel).native_output_layout().channels_last, expected == "onednn:nhwc")
            << w.key() << " " << c.knobs.dump() << " expected '" << expected << "'";
      }
      (expected.empty() ? plain : native) += 1;
    }
  }
  EXPECT_GE(native, 5);
  EXPECT_GE(plain, 5);
  EXPECT_GE(adopting, 2);
}

// A pool that adopts the channels-last layout reads and writes NHWC tensors and computes what it
// computes on plain ones; a key it does not list is refused; a new instance starts plain again.
// Pools and batch norms run in whatever layout their producer writes.
TEST(OnednnProvider, APoolOrBatchNormRunsInTheChannelsLastLayoutItAdopts) {
  const Provider& p = *find_provider("onednn").value();
  std::mt19937_64 rng(9);
  int checked = 0;
  auto to_nhwc = [](const HostTensor& t, HostTensor& out, bool back) {
    const ir::Shape& s = t.type().shape;
    const int64_t n = s[0], c = s[1], hw = s[2] * s[3];
    for (int64_t b = 0; b < n; ++b)
      for (int64_t ch = 0; ch < c; ++ch)
        for (int64_t i = 0; i < hw; ++i) {
          const int64_t plain = (b * c + ch) * hw + i, nhwc = (b * hw + i) * c + ch;
          out.f32()[back ? plain : nhwc] = t.f32()[back ? nhwc : plain];
        }
  };
  for (const ir::Workload& w : testing::coverage_workloads()) {
    const bool adopts = w.op == ir::OpKind::kMaxPool2d || w.op == ir::OpKind::kAvgPool2d ||
                        w.op == ir::OpKind::kGlobalAvgPool2d || w.op == ir::OpKind::kBatchNorm;
    if (!adopts || !p.supports(w) || p.expected_native_layout(w, p.default_config(w)) != "onednn:adopt") continue;
    auto kernel = p.compile(w, p.default_config(w), CompileOptions{"host", 1});
    if (!kernel.ok()) continue;
    std::string key;
    for (const Kernel::NativeLayout& l : (**kernel).alternative_input_layouts(0))
      if (l.channels_last) key = l.key;
    ASSERT_FALSE(key.empty()) << w.key();
    std::unique_ptr<Kernel> adopted = (**kernel).new_instance();
    EXPECT_FALSE(adopted->adopt_input_layout(0, "no such layout").ok());
    ASSERT_TRUE(adopted->adopt_input_layout(0, key).ok()) << w.key();
    EXPECT_EQ(adopted->native_input_layout(0).key, key);
    // A global pool's output (one pixel) is the same bytes in either layout: plain.
    const bool native_out = !adopted->native_output_layout().key.empty();
    EXPECT_EQ(native_out, w.op != ir::OpKind::kGlobalAvgPool2d) << w.key();
    if (native_out) {
      EXPECT_TRUE(adopted->native_output_layout().channels_last) << w.key();
    }
    ASSERT_TRUE(adopted->use_native_layouts({true}, native_out).ok());
    EXPECT_TRUE((**kernel).new_instance()->native_input_layout(0).key.empty()) << "a new instance starts plain";
    // Timed as a chain runs it (records' native_costs, the executor's choice of defaults): adopted.
    EXPECT_TRUE(has_native_layout(**kernel));
    std::unique_ptr<Kernel> timed = (**kernel).new_instance();
    ASSERT_TRUE(NativeIo::prepare(*timed, w).ok());
    EXPECT_TRUE(timed->native_input_layout(0).channels_last) << w.key();
    // Timed alone (the executor's estimate of what leaving a chain costs): left plain.
    std::unique_ptr<Kernel> alone = (**kernel).new_instance();
    Result<NativeIo> plain = NativeIo::prepare(*alone, w, 1, /*native=*/false);
    ASSERT_TRUE(plain.ok()) << plain.status().message();
    EXPECT_TRUE(alone->native_input_layout(0).key.empty()) << w.key();
    EXPECT_EQ(plain->output().num_elements(), w.output.num_elements());
    ASSERT_TRUE(alone->run(plain->inputs(), plain->output()).ok()) << w.key();
    std::vector<HostTensor> inputs = testing::random_inputs(w, rng);
    HostTensor in_nhwc(w.inputs[0]), out_nhwc(w.output), out(w.output), expected(w.output);
    to_nhwc(inputs[0], in_nhwc, false);
    std::vector<const HostTensor*> adopted_inputs = testing::pointers(inputs);  // a batch norm's statistics: plain
    adopted_inputs[0] = &in_nhwc;
    ASSERT_TRUE(adopted->run(adopted_inputs, native_out ? out_nhwc : out).ok());
    if (native_out) to_nhwc(out_nhwc, out, true);
    ASSERT_TRUE((**kernel).run(testing::pointers(inputs), expected).ok());
    EXPECT_LE(max_scaled_error(out, expected), 1.0) << w.key();
    ++checked;
  }
  EXPECT_GE(checked, 3);  // the batch norm among them
}

TEST(OnednnProvider, SupportsAnchorsPoolsAndBatchNormsOnly) {
  const Provider& p = *find_provider("onednn").value();
  for (const ir::Workload& w : testing::coverage_workloads()) {
    bool expected = w.op == ir::OpKind::kConv2d || w.op == ir::OpKind::kDense || w.op == ir::OpKind::kMatmul ||
                    w.op == ir::OpKind::kBatchMatmul || w.op == ir::OpKind::kMaxPool2d ||
                    w.op == ir::OpKind::kAvgPool2d || w.op == ir::OpKind::kGlobalAvgPool2d ||
                    w.op == ir::OpKind::kBatchNorm;
    EXPECT_EQ(p.supports(w), expected) << w.key();
  }
  // A batch norm of images with at most a ReLU after it: oneDNN fuses nothing else.
  ir::Workload bn =
      testing::make_workload(ir::OpKind::kBatchNorm, {{1, 4, 3, 3}, {4}, {4}, {4}, {4}}, {{"epsilon", 1e-3}}, {"relu"});
  EXPECT_TRUE(p.supports(bn));
  bn.epilogue = {"sigmoid"};
  EXPECT_FALSE(p.supports(bn));
  EXPECT_FALSE(
      p.supports(testing::make_workload(ir::OpKind::kBatchNorm, {{2, 4, 3}, {4}, {4}, {4}, {4}}, {{"epsilon", 1e-3}})));
}

// A batch norm with a ReLU after it, in every layout it offers, gives the reference's values.
TEST(OnednnProvider, BatchNormWithReluMatchesReference) {
  const Provider& p = *find_provider("onednn").value();
  std::mt19937_64 rng(11);
  const ir::Workload w = testing::make_workload(ir::OpKind::kBatchNorm, {{2, 16, 5, 7}, {16}, {16}, {16}, {16}},
                                                {{"epsilon", 1e-3}}, {"relu"});
  std::vector<HostTensor> inputs = testing::random_inputs(w, rng);
  HostTensor out(w.output), expected(w.output);
  ASSERT_TRUE(run_reference(w, testing::pointers(inputs), expected).ok());
  for (const Config& c : p.space(w).enumerate("onednn")) {
    auto kernel = p.compile(w, c, CompileOptions{"host", 2});
    ASSERT_TRUE(kernel.ok()) << kernel.status().message();
    ASSERT_TRUE((**kernel).run(testing::pointers(inputs), out).ok());
    EXPECT_LE(max_scaled_error(out, expected), 1.0) << c.knobs.dump();
    EXPECT_GE((**kernel).alternative_input_layouts(0).size(), 1u) << c.knobs.dump();
  }
}

}  // namespace
}  // namespace tensorperf::kernels
