#include <gtest/gtest.h>

#include "kernels/provider.h"
#include "test_workloads.h"

namespace tensorperf::kernels {
namespace {

TEST(ProviderRegistry, FindsHalideAndOnednn) {
  ASSERT_EQ(providers().size(), 2u);
  EXPECT_EQ(find_provider("halide").value()->name(), "halide");
  EXPECT_EQ(find_provider("onednn").value()->name(), "onednn");
  auto missing = find_provider("tvm");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("halide"), std::string::npos);
}

TEST(ProviderRegistry, HalideCoversEveryWorkloadKindWithASpace) {
  const Provider& p = *find_provider("halide").value();
  for (const ir::Workload& w : testing::coverage_workloads()) {
    EXPECT_TRUE(p.supports(w)) << w.key();
    EXPECT_GT(p.space(w).size(), 1.0) << w.key();
  }
  // The conv2d space: layouts, blocks, tiles, compute_at, channel split, orders, padding, unroll, parallel.
  EXPECT_GT(p.space(testing::coverage_workloads()[0]).size(), 1e5);
}

TEST(ProviderRegistry, KernelInputTypesAppendEpilogueTensors) {
  ir::Workload w = testing::coverage_workloads()[1];  // conv2d with bias, add, relu6
  auto types = kernel_input_types(w);
  ASSERT_EQ(types.size(), 4u);
  EXPECT_EQ(types[2].shape, ir::Shape{12});
  EXPECT_EQ(types[3], w.output);
}

TEST(ProviderRegistry, WrongProviderConfigIsRejected) {
  const Provider& p = *find_provider("halide").value();
  ir::Workload w = testing::coverage_workloads()[0];
  auto k = p.compile(w, Config{"onednn", {}}, CompileOptions{});
  EXPECT_EQ(k.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tensorperf::kernels

namespace tensorperf::kernels {
namespace {

TEST(ConfigSpace, EnumerateVisitsEveryPointOnce) {
  ConfigSpace space{{Knob{"format", {"any", "nchw"}}, Knob{"threads", {1, 2, 4}}}};
  EXPECT_DOUBLE_EQ(space.size(), 6);
  std::vector<Config> all = space.enumerate("onednn");
  ASSERT_EQ(all.size(), 6u);
  EXPECT_EQ(all.front().knobs, (nlohmann::json{{"format", "any"}, {"threads", 1}}));
  EXPECT_EQ(all.back().knobs, (nlohmann::json{{"format", "nchw"}, {"threads", 4}}));
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].provider, "onednn");
    for (size_t j = i + 1; j < all.size(); ++j) EXPECT_NE(all[i].knobs, all[j].knobs);
  }
  EXPECT_EQ(ConfigSpace{}.enumerate("halide").size(), 1u);  // the empty space has one point
}

}  // namespace
}  // namespace tensorperf::kernels
