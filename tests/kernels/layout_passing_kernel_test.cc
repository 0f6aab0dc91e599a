#include "kernels/onednn/layout_passing_kernel.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ir/workload.h"
#include "kernels/host_tensor.h"
#include "kernels/provider.h"

namespace tensorperf::kernels::onednn {
namespace {

ir::Workload workload(const std::string& key) {
  Result<ir::Workload> w = ir::parse_workload_key(key);
  EXPECT_TRUE(w.ok()) << key << ": " << w.status().message();
  return *w;
}

std::unique_ptr<Kernel> halide_kernel(const ir::Workload& w) {
  const Provider* p = *find_provider("halide");
  Result<std::unique_ptr<Kernel>> k = p->compile(w, p->default_config(w), CompileOptions{"host", 2});
  EXPECT_TRUE(k.ok()) << k.status().message();
  return k.ok() ? std::move(*k) : nullptr;
}

// NCHW -> NHWC and back, by hand (what a channels-last producer writes).
HostTensor to_nhwc(const HostTensor& t) {
  const ir::Shape& s = t.type().shape;
  HostTensor out(t.type());
  for (int64_t n = 0; n < s[0]; ++n)
    for (int64_t c = 0; c < s[1]; ++c)
      for (int64_t h = 0; h < s[2]; ++h)
        for (int64_t x = 0; x < s[3]; ++x)
          out.f32()[((n * s[2] + h) * s[3] + x) * s[1] + c] = t.f32()[((n * s[1] + c) * s[2] + h) * s[3] + x];
  return out;
}
HostTensor from_nhwc(const HostTensor& t) {
  const ir::Shape& s = t.type().shape;
  HostTensor out(t.type());
  for (int64_t n = 0; n < s[0]; ++n)
    for (int64_t c = 0; c < s[1]; ++c)
      for (int64_t h = 0; h < s[2]; ++h)
        for (int64_t x = 0; x < s[3]; ++x)
          out.f32()[((n * s[1] + c) * s[2] + h) * s[3] + x] = t.f32()[((n * s[2] + h) * s[3] + x) * s[1] + c];
  return out;
}

std::string channels_last_key(const Kernel& k, size_t input) {
  for (const Kernel::NativeLayout& l : k.alternative_input_layouts(input))
    if (l.channels_last) return l.key;
  return "";
}

void expect_equal(const HostTensor& a, const HostTensor& b) {
  ASSERT_EQ(a.num_elements(), b.num_elements());
  for (int64_t i = 0; i < a.num_elements(); ++i) ASSERT_FLOAT_EQ(a.f32()[i], b.f32()[i]) << "element " << i;
}

// Which workloads pass a layout through: element-wise ops of same-shape rank-4 inputs (or a
// one-element operand), with activation epilogues; per-channel operands, batch norms and other
// ranks do not. Blocked layouts only where the channels fill whole blocks.
TEST(LayoutPassing, ElementWiseWorkloadsOfOneShapePassLayouts) {
  EXPECT_TRUE(passes_layouts_through(workload("add|float32[1,78,28,28];float32[1,78,28,28]||relu")));
  EXPECT_TRUE(passes_layouts_through(workload("relu|float32[1,44,28,28]||")));
  EXPECT_TRUE(passes_layouts_through(workload("mul|float32[1,78,28,28];float32[1]||")));
  EXPECT_FALSE(passes_layouts_through(workload("add|float32[1,78,28,28];float32[1,78,1,1]||")));
  EXPECT_FALSE(passes_layouts_through(workload("add|float32[2,128,768];float32[2,128,768]||")));
  EXPECT_FALSE(passes_layouts_through(
      workload("batch_norm|float32[1,22,56,56];float32[22];float32[22];float32[22];float32[22]|epsilon=0.001|")));
  const ir::Workload w78 = workload("relu|float32[1,78,28,28]||");
  EXPECT_TRUE(passes_layout_family(w78, "onednn:nhwc"));
  EXPECT_FALSE(passes_layout_family(w78, "onednn:blocked16"));  // 78 channels pad to 80
  EXPECT_FALSE(passes_layout_family(w78, "onednn:blocked8"));
  const ir::Workload w32 = workload("relu|float32[1,32,7,7]||");
  EXPECT_TRUE(passes_layout_family(w32, "onednn:blocked16"));
  EXPECT_TRUE(passes_layout_family(w32, "onednn:blocked8"));
  EXPECT_FALSE(passes_layout_family(w32, ""));
}

// A Halide add + relu given both inputs channels last writes its output channels last, the values
// of the plain run; with one input plain and the output wanted plain, it converts both and still
// computes the plain run's values. A new instance starts plain.
TEST(LayoutPassing, AnAdoptedLayoutComputesThePlainValues) {
  const ir::Workload w = workload("add|float32[1,78,5,7];float32[1,78,5,7]||relu");
  std::unique_ptr<Kernel> k = pass_layouts_through(halide_kernel(w), w, 2);
  ASSERT_NE(k, nullptr);
  std::mt19937_64 rng(3);
  HostTensor a(w.inputs[0]), b(w.inputs[1]), want(w.output);
  a.fill_random(rng);
  b.fill_random(rng);
  ASSERT_TRUE(k->run({&a, &b}, want).ok());  // plain, before any adoption
  EXPECT_TRUE(k->native_output_layout().key.empty());

  std::unique_ptr<Kernel> fresh = k->new_instance();
  ASSERT_NE(fresh, nullptr);
  const std::string nhwc = channels_last_key(*k, 0);
  ASSERT_FALSE(nhwc.empty());
  EXPECT_FALSE(k->adopt_input_layout(0, "onednn:no-such-layout").ok());
  ASSERT_TRUE(k->adopt_input_layout(0, nhwc).ok());
  EXPECT_EQ(k->native_input_layout(1).key, nhwc);  // every full-shape input takes it
  EXPECT_EQ(k->native_output_layout().key, nhwc);
  EXPECT_TRUE(k->native_output_layout().channels_last);
  EXPECT_TRUE(k->alternative_input_layouts(1).empty());

  ASSERT_TRUE(k->use_native_layouts({true, true}, true).ok());
  const HostTensor a_cl = to_nhwc(a), b_cl = to_nhwc(b);
  HostTensor got_cl(w.output);
  ASSERT_TRUE(k->run({&a_cl, &b_cl}, got_cl).ok());
  expect_equal(from_nhwc(got_cl), want);

  ASSERT_TRUE(k->use_native_layouts({false, true}, false).ok());
  HostTensor got(w.output);
  ASSERT_TRUE(k->run({&a, &b_cl}, got).ok());
  expect_equal(got, want);

  EXPECT_TRUE(fresh->native_output_layout().key.empty());
  EXPECT_FALSE(fresh->use_native_layouts({true, false}, false).ok());  // nothing adopted
  HostTensor again(w.output);
  ASSERT_TRUE(fresh->run({&a, &b}, again).ok());
  expect_equal(again, want);
}

// Blocked layouts are offered where the channels fill whole blocks (32 channels: nChw16c and
// nChw8c, besides channels last), not where they pad (78 channels: channels last only). In a
// blocked layout, with its inputs converted in and its output converted back, the kernel computes
// the plain values.
TEST(LayoutPassing, BlockedLayoutsOnlyWhereTheChannelsFillWholeBlocks) {
  const ir::Workload w78 = workload("relu|float32[1,78,3,3]||");
  std::unique_ptr<Kernel> k78 = pass_layouts_through(halide_kernel(w78), w78, 1);
  ASSERT_NE(k78, nullptr);
  ASSERT_EQ(k78->alternative_input_layouts(0).size(), 1u);
  EXPECT_TRUE(k78->alternative_input_layouts(0)[0].channels_last);

  const ir::Workload w = workload("add|float32[1,32,3,5];float32[1,32,3,5]||");
  std::unique_ptr<Kernel> k = pass_layouts_through(halide_kernel(w), w, 2);
  ASSERT_NE(k, nullptr);
  const std::vector<Kernel::NativeLayout> offered = k->alternative_input_layouts(0);
  ASSERT_EQ(offered.size(), 3u);
  std::string blocked;
  for (const Kernel::NativeLayout& l : offered) {
    EXPECT_EQ(l.bytes, w.output.num_bytes());  // no padding
    if (!l.channels_last && blocked.empty()) blocked = l.key;
  }
  ASSERT_FALSE(blocked.empty());
  std::mt19937_64 rng(7);
  HostTensor a(w.inputs[0]), b(w.inputs[1]), want(w.output), got(w.output);
  a.fill_random(rng);
  b.fill_random(rng);
  ASSERT_TRUE(halide_kernel(w)->run({&a, &b}, want).ok());
  ASSERT_TRUE(k->adopt_input_layout(1, blocked).ok());
  EXPECT_EQ(k->native_output_layout().key, blocked);
  ASSERT_TRUE(k->use_native_layouts({false, false}, false).ok());
  ASSERT_TRUE(k->run({&a, &b}, got).ok());
  expect_equal(got, want);
}

// A one-element operand stays as it is; the other input and the output take the layout.
TEST(LayoutPassing, AOneElementOperandTakesNoLayout) {
  const ir::Workload w = workload("mul|float32[1,16,4,4];float32[1]||relu");
  std::unique_ptr<Kernel> k = pass_layouts_through(halide_kernel(w), w, 1);
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(k->alternative_input_layouts(1).empty());
  const std::string nhwc = channels_last_key(*k, 0);
  ASSERT_FALSE(nhwc.empty());
  EXPECT_FALSE(k->adopt_input_layout(1, nhwc).ok());
  ASSERT_TRUE(k->adopt_input_layout(0, nhwc).ok());
  EXPECT_TRUE(k->native_input_layout(1).key.empty());
  std::mt19937_64 rng(5);
  HostTensor x(w.inputs[0]), s(w.inputs[1]), want(w.output), got(w.output);
  x.fill_random(rng);
  s.f32()[0] = -0.5f;
  std::unique_ptr<Kernel> plain = halide_kernel(w);
  ASSERT_TRUE(plain->run({&x, &s}, want).ok());
  ASSERT_TRUE(k->use_native_layouts({true, false}, true).ok());
  const HostTensor x_cl = to_nhwc(x);
  ASSERT_TRUE(k->run({&x_cl, &s}, got).ok());
  expect_equal(from_nhwc(got), want);
}

}  // namespace
}  // namespace tensorperf::kernels::onednn
