// Property test: random points of every Halide template's space, on workloads covering every op kind
// (odd sizes, strides, groups, dilation, padding, epilogues), fresh random inputs each time, outputs
// compared to the plain C++ reference. Instantiation errors (InvalidArgument) are allowed but counted.
#include <gtest/gtest.h>

#include <random>

#include "kernels/provider.h"
#include "test_workloads.h"

namespace tensorperf::kernels {
namespace {

Config random_config(const ConfigSpace& space, std::mt19937_64& rng) {
  Config c{"halide", nlohmann::json::object()};
  for (const Knob& k : space.knobs) c.knobs[k.name] = k.values[rng() % k.values.size()];
  return c;
}

// Runs `config` on `w` with fresh inputs and checks it against the reference. Returns false when the
// config was rejected as an instantiation error.
bool check_config(const Provider& p, const ir::Workload& w, const Config& config, std::mt19937_64& rng) {
  auto kernel = p.compile(w, config, CompileOptions{"host", 2});
  if (!kernel.ok()) {
    EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument)
        << w.key() << " " << config.knobs.dump() << ": " << kernel.status().message();
    return false;
  }
  std::vector<HostTensor> inputs = testing::random_inputs(w, rng);
  HostTensor out(w.output), expected(w.output);
  for (int run = 0; run < 2; ++run) {  // the second run reuses packed weights
    Status st = kernel.value()->run(testing::pointers(inputs), out);
    EXPECT_TRUE(st.ok()) << w.key() << " " << config.knobs.dump() << ": " << st.message();
  }
  EXPECT_TRUE(run_reference(w, testing::pointers(inputs), expected).ok());
  EXPECT_LE(max_scaled_error(out, expected), 1.0) << w.key() << " " << config.knobs.dump();
  return true;
}

TEST(HalideProperty, DefaultConfigOfEveryWorkloadMatchesReference) {
  const Provider& p = *find_provider("halide").value();
  std::mt19937_64 rng(1);
  for (const ir::Workload& w : testing::coverage_workloads()) {
    ASSERT_TRUE(p.supports(w)) << w.key();
    EXPECT_TRUE(check_config(p, w, p.default_config(w), rng)) << "default config rejected for " << w.key();
  }
}

TEST(HalideProperty, RandomConfigsMatchReference) {
  const Provider& p = *find_provider("halide").value();
  std::mt19937_64 rng(7);
  int valid = 0, rejected = 0;
  for (const ir::Workload& w : testing::coverage_workloads()) {
    ConfigSpace space = p.space(w);
    ASSERT_GT(space.size(), 1.0) << w.key();
    const int tries = w.op == ir::OpKind::kConv2d || w.op == ir::OpKind::kDense ? 4 : 2;
    for (int i = 0; i < tries; ++i) (check_config(p, w, random_config(space, rng), rng) ? valid : rejected)++;
  }
  EXPECT_GT(valid, 3 * rejected) << "most random configs should instantiate";
}

// The fast conv2d shape (blocked layout, register tile, channel split, row-level accumulation).
TEST(HalideProperty, BlockedConvSchedulesMatchReference) {
  const Provider& p = *find_provider("halide").value();
  std::mt19937_64 rng(3);
  ir::Workload w = testing::coverage_workloads()[0];
  for (std::string at : {"tile", "row"})
    for (std::string pad : {"inline", "root", "row"}) {
      std::string tail = pad == "row" ? "shift_inwards" : "guard";  // tile 6 on a 14-wide output: a tail
      nlohmann::json k = {{"layout", "nchwc"}, {"oc_block", 16}, {"vector_width", 8}, {"tile_x", 6},
                          {"tile_y", 2},       {"tail", tail},     {"compute_at", at}, {"rc_block", 8},
                          {"reduce_order", "c_k"}, {"pad", pad},   {"unroll", 1},      {"parallel", "rows"}};
      EXPECT_TRUE(check_config(p, w, Config{"halide", k}, rng)) << at << " " << pad << " " << tail;
    }
}

TEST(HalideProperty, InvalidKnobsAreInstantiationErrors) {
  const Provider& p = *find_provider("halide").value();
  ir::Workload w = testing::coverage_workloads()[0];
  Config c = p.default_config(w);
  c.knobs["layout"] = "nchwc";
  c.knobs["oc_block"] = 12;  // not a multiple of vector_width 8
  auto k = p.compile(w, c, CompileOptions{});
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), StatusCode::kInvalidArgument);
  c.knobs.erase("tile_x");
  EXPECT_EQ(p.compile(w, c, CompileOptions{}).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tensorperf::kernels
