// Every point of the oneDNN provider's (small) space on every workload it supports, against the
// reference; and the ops it declines.
#include <gtest/gtest.h>

#include <random>

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

TEST(OnednnProvider, SupportsAnchorsAndPoolsOnly) {
  const Provider& p = *find_provider("onednn").value();
  for (const ir::Workload& w : testing::coverage_workloads()) {
    bool expected = w.op == ir::OpKind::kConv2d || w.op == ir::OpKind::kDense || w.op == ir::OpKind::kMatmul ||
                    w.op == ir::OpKind::kBatchMatmul || w.op == ir::OpKind::kMaxPool2d ||
                    w.op == ir::OpKind::kAvgPool2d || w.op == ir::OpKind::kGlobalAvgPool2d;
    EXPECT_EQ(p.supports(w), expected) << w.key();
  }
}

}  // namespace
}  // namespace tensorperf::kernels
