// The provider contract that tuners rely on: validate() rejects exactly what compile() rejects before
// compiling (cheaply, without compiling), seed configs are valid, warming up the compiler starts
// no thread (so measurement workers can still be forked), and kernels may run at once on threads.
#include <dirent.h>

#include <cmath>
#include <random>
#include <thread>

#include <gtest/gtest.h>

#include "kernels/provider.h"
#include "test_workloads.h"

namespace tensorperf::kernels {
namespace {

int threads_of_this_process() {
  int n = 0;
  if (DIR* d = ::opendir("/proc/self/task")) {
    while (dirent* e = ::readdir(d)) n += e->d_name[0] != '.';
    ::closedir(d);
  }
  return n;
}

Config random_config(const ConfigSpace& space, const std::string& provider, std::mt19937_64& rng) {
  Config c{provider, nlohmann::json::object()};
  for (const Knob& k : space.knobs) c.knobs[k.name] = k.values[rng() % k.values.size()];
  return c;
}

TEST(ProviderContract, ValidateRejectsExactlyWhatCompileRejectsBeforeCompiling) {
  std::mt19937_64 rng(5);
  int rejected = 0;
  for (const Provider* p : providers())
    for (const ir::Workload& w : testing::coverage_workloads()) {
      if (!p->supports(w)) continue;
      for (int i = 0; i < 40; ++i) {
        Config c = random_config(p->space(w), p->name(), rng);
        Status v = p->validate(w, c);
        if (v.ok()) continue;  // the property test compiles and runs valid random configs
        ++rejected;
        EXPECT_EQ(v.code(), StatusCode::kInvalidArgument) << v.message();
        auto k = p->compile(w, c, CompileOptions{});
        ASSERT_FALSE(k.ok()) << p->name() << " compiled a config validate() rejects: " << c.knobs.dump();
        EXPECT_EQ(k.status().message(), v.message());
      }
    }
  EXPECT_GT(rejected, 50);  // conv2d's random points often break its constraints
}

TEST(ProviderContract, ValidateNamesTheProblem) {
  const Provider& halide = *find_provider("halide").value();
  ir::Workload conv = testing::coverage_workloads()[0];
  Config c = halide.default_config(conv);
  EXPECT_TRUE(halide.validate(conv, c).ok());
  c.knobs["layout"] = "nchwc";
  c.knobs["oc_block"] = 4;
  c.knobs["vector_width"] = 16;
  Status s = halide.validate(conv, c);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("multiple of vector_width"), std::string::npos) << s.message();
  c.knobs.erase("tile_x");
  EXPECT_NE(halide.validate(conv, c).message().find("tile_x"), std::string::npos);
  const Provider& onednn = *find_provider("onednn").value();
  Status bad = onednn.validate(conv, Config{"onednn", {{"format", "nchw16c"}, {"algorithm", "direct"}}});
  EXPECT_NE(bad.message().find("format"), std::string::npos) << bad.message();
}

TEST(ProviderContract, SeedConfigsAreValidAndUseTheTargetsVectors) {
  const Provider& halide = *find_provider("halide").value();
  for (const char* target : {"x86-64-linux-avx-avx2-f16c-fma-sse41", "x86-64-linux-sse41"})
    for (const ir::Workload& w : testing::coverage_workloads()) {
      for (const Config& c : halide.seed_configs(w, target)) {
        EXPECT_TRUE(halide.validate(w, c).ok()) << c.knobs.dump();
        EXPECT_EQ(c.knobs["vector_width"], std::string(target).find("avx2") != std::string::npos ? 8 : 4);
      }
    }
  ir::Workload conv = testing::coverage_workloads()[0];
  EXPECT_FALSE(halide.seed_configs(conv, "x86-64-linux-sse41").empty());
}

TEST(ProviderContract, ScheduleFeaturesFollowTheKnobs) {
  const Provider& halide = *find_provider("halide").value();
  ir::Workload conv = testing::coverage_workloads()[0];
  Config c = halide.seed_configs(conv, "x86-64-linux-avx-avx2-f16c-fma-sse41").front();
  auto base = halide.schedule_features(conv, c);
  ASSERT_TRUE(base.ok()) << base.status().message();
  ASSERT_FALSE(base->empty());
  // Another parallel loop changes the task count (entry 2) and the work per task (3), not the tile.
  Config serial = c;
  serial.knobs["parallel"] = "none";
  auto f = halide.schedule_features(conv, serial);
  ASSERT_TRUE(f.ok());
  ASSERT_EQ(f->size(), base->size());
  EXPECT_EQ((*f)[0], (*base)[0]);
  EXPECT_LT((*f)[2], (*base)[2]);
  EXPECT_GT((*f)[3], (*base)[3]);
  // A wider register tile: more accumulators (entry 0).
  Config wide = c;
  wide.knobs["tile_x"] = 2 * c.knobs["tile_x"].get<int>();
  wide.knobs["unroll"] = 0;
  auto g = halide.schedule_features(conv, wide);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ((*g)[0], 2 * (*base)[0]);
  // Invalid configs have none.
  Config bad = c;
  bad.knobs["oc_block"] = 4;
  EXPECT_EQ(halide.schedule_features(conv, bad).status().code(), StatusCode::kInvalidArgument);
}

TEST(ProviderContract, VectorLanesOfTargets) {
  EXPECT_EQ(*vector_lanes("x86-64-linux-sse41"), 4);
  EXPECT_EQ(*vector_lanes("x86-64-linux-avx-avx2-f16c-fma-sse41"), 8);
  EXPECT_EQ(*vector_lanes("x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41"), 16);
  EXPECT_FALSE(vector_lanes("not-a-target").ok());
}

TEST(ProviderContract, WarmingUpTheCompilersStartsNoThread) {
  const int before = threads_of_this_process();
  for (const Provider* p : providers()) {
    Status s = p->warm_up("host");
    EXPECT_TRUE(s.ok()) << p->name() << ": " << s.message();
  }
  EXPECT_EQ(threads_of_this_process(), before);
  EXPECT_FALSE(find_provider("halide").value()->warm_up("bogus-target").ok());
}

// What the concurrent stages of a schedule rely on: a Halide kernel of one thread runs its parallel
// loops in the calling thread (the JIT runtime's pool never starts), and two instances of one
// compiled kernel, run at once on two threads, each compute their own inputs' result.
TEST(ProviderContract, OneThreadHalideKernelsRunInTheCallerAndInstancesRunAtOnce) {
  const ir::Workload w = testing::make_workload(ir::OpKind::kConv2d, {{1, 16, 20, 20}, {32, 16, 3, 3}},
                                                {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  const Provider* halide = find_provider("halide").value();
  Config c = halide->default_config(w);
  ASSERT_EQ(c.knobs.value("parallel", std::string()), "rows") << c.knobs.dump();
  CompileOptions o;
  o.threads = 1;
  Result<std::unique_ptr<Kernel>> compiled = halide->compile(w, c, o);
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  std::unique_ptr<Kernel> a = (*compiled)->new_instance(), b = (*compiled)->new_instance();
  std::mt19937_64 rng(1);
  std::vector<HostTensor> in_a = testing::random_inputs(w, rng), in_b = testing::random_inputs(w, rng);
  HostTensor want_a(w.output), want_b(w.output), got_a(w.output), got_b(w.output);
  ASSERT_TRUE(run_reference(w, testing::pointers(in_a), want_a).ok());
  ASSERT_TRUE(run_reference(w, testing::pointers(in_b), want_b).ok());
  const int before = threads_of_this_process();
  for (int round = 0; round < 20; ++round) {
    Status sa, sb;
    std::thread other([&] { sb = b->run(testing::pointers(in_b), got_b); });
    sa = a->run(testing::pointers(in_a), got_a);
    other.join();
    ASSERT_TRUE(sa.ok() && sb.ok()) << sa.message() << " " << sb.message();
  }
  EXPECT_EQ(threads_of_this_process(), before) << "a 1-thread kernel started the JIT runtime's thread pool";
  for (int64_t i = 0; i < want_a.num_elements(); ++i) {
    ASSERT_NEAR(got_a.f32()[i], want_a.f32()[i], 1e-3 + 1e-3 * std::abs(want_a.f32()[i])) << i;
    ASSERT_NEAR(got_b.f32()[i], want_b.f32()[i], 1e-3 + 1e-3 * std::abs(want_b.f32()[i])) << i;
  }
}

// One compile serves several thread counts (the dataset's 1- and 2-thread devices): a 2-thread
// Halide kernel gives a 1-thread instance of its code that runs in the caller and computes the same.
TEST(ProviderContract, HalideKernelsGiveInstancesOfOtherThreadCounts) {
  const ir::Workload w = testing::make_workload(ir::OpKind::kConv2d, {{1, 8, 12, 12}, {16, 8, 3, 3}},
                                                {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  const Provider* halide = find_provider("halide").value();
  CompileOptions o;
  o.threads = 2;
  Result<std::unique_ptr<Kernel>> compiled = halide->compile(w, halide->default_config(w), o);
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  std::unique_ptr<Kernel> one = (*compiled)->instance_with_threads(1);
  ASSERT_NE(one, nullptr);
  EXPECT_EQ((*compiled)->instance_with_threads(0), nullptr);
  std::mt19937_64 rng(2);
  std::vector<HostTensor> in = testing::random_inputs(w, rng);
  HostTensor want(w.output), got(w.output);
  ASSERT_TRUE(run_reference(w, testing::pointers(in), want).ok());
  const int before = threads_of_this_process();
  ASSERT_TRUE(one->run(testing::pointers(in), got).ok());
  EXPECT_EQ(threads_of_this_process(), before) << "the 1-thread instance started the JIT runtime's thread pool";
  for (int64_t i = 0; i < want.num_elements(); ++i)
    ASSERT_NEAR(got.f32()[i], want.f32()[i], 1e-3 + 1e-3 * std::abs(want.f32()[i])) << i;
}

// A process that runs both providers has one set of worker threads: a Halide kernel of 2 threads
// runs its parallel loops on the OpenMP team that oneDNN's kernels of 2 threads started (the JIT
// runtime's own pool, beside OpenMP's spinning team, contended with it for the cores), and
// computes the same.
TEST(ProviderContract, HalideKernelsOfSeveralThreadsUseOpenMpsTeam) {
  const ir::Workload w = testing::make_workload(ir::OpKind::kConv2d, {{1, 16, 20, 20}, {32, 16, 3, 3}},
                                                {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  const Provider* onednn = find_provider("onednn").value();
  const Provider* halide = find_provider("halide").value();
  CompileOptions o;
  o.threads = 2;
  Result<std::unique_ptr<Kernel>> d = onednn->compile(w, onednn->default_config(w), o);
  ASSERT_TRUE(d.ok()) << d.status().message();
  const Config c = halide->default_config(w);
  ASSERT_EQ(c.knobs.value("parallel", std::string()), "rows") << c.knobs.dump();
  Result<std::unique_ptr<Kernel>> h = halide->compile(w, c, o);
  ASSERT_TRUE(h.ok()) << h.status().message();
  std::mt19937_64 rng(3);
  std::vector<HostTensor> in = testing::random_inputs(w, rng);
  HostTensor want(w.output), got(w.output), from_onednn(w.output);
  ASSERT_TRUE(run_reference(w, testing::pointers(in), want).ok());
  ASSERT_TRUE((*d)->run(testing::pointers(in), from_onednn).ok());
  const int with_openmp = threads_of_this_process();
  ASSERT_GT(with_openmp, 1) << "oneDNN's kernel of 2 threads started no OpenMP worker";
  for (int round = 0; round < 5; ++round) {
    ASSERT_TRUE((*h)->run(testing::pointers(in), got).ok());
    ASSERT_TRUE((*d)->run(testing::pointers(in), from_onednn).ok());
  }
  EXPECT_EQ(threads_of_this_process(), with_openmp) << "the Halide kernel started threads of its own";
  for (int64_t i = 0; i < want.num_elements(); ++i)
    ASSERT_NEAR(got.f32()[i], want.f32()[i], 1e-3 + 1e-3 * std::abs(want.f32()[i])) << i;
}

}  // namespace
}  // namespace tensorperf::kernels
