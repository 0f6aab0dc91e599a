// The default a stored config is held against at load (rival_default).
#include "runtime/config_choice.h"

#include <gtest/gtest.h>

#include "ir/workload.h"
#include "kernels/provider.h"

namespace tensorperf::runtime {
namespace {

ir::Workload workload(const std::string& key) {
  Result<ir::Workload> w = ir::parse_workload_key(key);
  if (!w.ok()) throw std::runtime_error(w.status().message());
  return *w;
}

const kernels::Provider& provider(const std::string& name) {
  Result<const kernels::Provider*> p = kernels::find_provider(name);
  if (!p.ok()) throw std::runtime_error(p.status().message());
  return **p;
}

const char* kConv =
    "conv2d|float32[1,64,28,28];float32[64,64,3,3]|dilations=[1,1];groups=1;pads=[1,1,1,1];strides=[1,1]|bias+relu";
const char* kRelu = "relu|float32[1,264,28,28]||";

TEST(RivalDefault, AConfigOfAnotherProviderIsHeldAgainstOnednnsDefault) {
  const ir::Workload w = workload(kConv);
  const kernels::Config stored = provider("halide").default_config(w);
  std::optional<kernels::Config> rival = rival_default(w, stored);
  ASSERT_TRUE(rival.has_value());
  EXPECT_EQ(rival->provider, "onednn");
  EXPECT_EQ(rival->knobs, provider("onednn").default_config(w).knobs);
}

TEST(RivalDefault, AOnednnConfigOfAWorkloadOnednnRunsIsNotChecked) {
  const ir::Workload w = workload(kConv);
  EXPECT_FALSE(rival_default(w, provider("onednn").default_config(w)).has_value());
  kernels::Config tuned = provider("onednn").default_config(w);
  tuned.knobs["algorithm"] = "direct";
  EXPECT_FALSE(rival_default(w, tuned).has_value());
}

// oneDNN runs no standalone ReLU: a stored Halide config is held against Halide's default of
// today, unless it is that default.
TEST(RivalDefault, WhereOnednnDoesNotRunTheWorkloadTheProvidersOwnDefaultIsTheRival) {
  const ir::Workload w = workload(kRelu);
  ASSERT_FALSE(provider("onednn").supports(w));
  const kernels::Config today = provider("halide").default_config(w);
  EXPECT_FALSE(rival_default(w, today).has_value());
  const kernels::Config old_default{"halide", {{"vector_width", 1}, {"unroll", 1}, {"parallel", "none"}}};
  ASSERT_NE(old_default.knobs, today.knobs);
  std::optional<kernels::Config> rival = rival_default(w, old_default);
  ASSERT_TRUE(rival.has_value());
  EXPECT_EQ(rival->provider, "halide");
  EXPECT_EQ(rival->knobs, today.knobs);
}

TEST(RivalDefault, AConfigOfAnUnknownProviderHasNoRival) {
  EXPECT_FALSE(rival_default(workload(kRelu), kernels::Config{"no-such-provider", nlohmann::json::object()}).has_value());
}

}  // namespace
}  // namespace tensorperf::runtime
