// Whole models through the executor: fused kernels (oneDNN, Halide, configs from a store) against
// the unfused reference path, compile sharing, the memory plan, concat without copies and where
// each config comes from.
#include "runtime/executor.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <stdexcept>

#include "db/record_store.h"
#include "ir/models/zoo.h"
#include "ir/task_extraction.h"
#include "kernels/native_io.h"
#include "kernels/onednn/layout_passing_kernel.h"
#include "kernels/provider.h"
#include "measure/device.h"
#include "measure/record.h"
#include "runtime/layout_chains.h"
#include "runtime/layout_copies.h"

namespace tensorperf::runtime {
namespace {

// Every executor in this process compiles for one target (oneDNN fixes its ISA once per process).
const measure::Device& device() {
  static const measure::Device d = [] {
    measure::DeviceOptions o;
    o.threads = 1;
    Result<measure::Device> r = measure::detect_device(o);
    if (!r.ok()) throw std::runtime_error(r.status().message());
    return *r;
  }();
  return d;
}

ExecutorOptions options(ConfigPolicy p, db::RecordStore* store = nullptr) {
  ExecutorOptions o;
  o.policy = p;
  o.store = store;
  o.device_key = device().key();
  o.target = device().target;
  o.threads = 1;
  o.seed = 3;
  return o;
}

std::unique_ptr<Executor> load(const ir::Graph& g, const ExecutorOptions& o) {
  Result<std::unique_ptr<Executor>> e = Executor::load(g, o);
  if (!e.ok()) throw std::runtime_error(e.status().message());
  return std::move(*e);
}

// Runs with seeded random inputs; returns the first output.
std::vector<float> run(Executor& e, uint64_t seed = 11) {
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < e.num_inputs(); ++i) e.input(i).fill_random(rng);
  Status s = e.run();
  if (!s.ok()) throw std::runtime_error(s.message());
  const kernels::HostTensor& out = e.output(0);
  return std::vector<float>(out.f32(), out.f32() + out.num_elements());
}

// max |a - b| / max |b|.
double relative_error(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return INFINITY;
  double diff = 0, scale = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) return INFINITY;
    diff = std::max(diff, static_cast<double>(std::abs(a[i] - b[i])));
    scale = std::max(scale, static_cast<double>(std::abs(b[i])));
  }
  return diff / std::max(scale, 1e-30);
}

struct ZooCase {
  std::string model;
  int64_t image_size;
  int64_t batch;
};
std::ostream& operator<<(std::ostream& os, const ZooCase& c) { return os << c.model; }

class ZooModels : public ::testing::TestWithParam<ZooCase> {};

// oneDNN's kernels with batch norms folded, biases summed, epilogues fused and views for layout ops
// compute what the reference kernels compute node by node.
TEST_P(ZooModels, FusedKernelsMatchTheUnfusedReferencePath) {
  ir::ModelOptions mo;
  mo.image_size = GetParam().image_size;
  mo.batch = GetParam().batch;
  mo.seq_len = 16;
  Result<ir::Graph> g = ir::build_model(GetParam().model, mo);
  ASSERT_TRUE(g.ok()) << g.status().message();
  auto fused = load(*g, options(ConfigPolicy::kOnednn));
  auto reference = load(*g, options(ConfigPolicy::kReference));
  const std::vector<float> want = run(*reference);
  const std::vector<float> got = run(*fused);
  EXPECT_LE(relative_error(got, want), 1e-3) << GetParam().model;
  EXPECT_GT(*std::max_element(want.begin(), want.end()), 0.0f);  // not all zero: the path computes something
  EXPECT_LT(fused->kernel_steps(), reference->kernel_steps()) << "nothing was fused";
}

INSTANTIATE_TEST_SUITE_P(Runtime, ZooModels,
                         ::testing::Values(ZooCase{"resnet18", 64, 1}, ZooCase{"resnet50", 64, 1},
                                           ZooCase{"vgg16", 224, 1}, ZooCase{"inception_v3", 75, 1},
                                           ZooCase{"squeezenet1_1", 64, 2}, ZooCase{"mobilenet_v2", 64, 1},
                                           ZooCase{"nasnet_a_mobile", 64, 1}, ZooCase{"randwire", 64, 1},
                                           ZooCase{"bert_base", 0, 1}),
                         [](const auto& info) { return info.param.model; });

TEST(Executor, HalideDefaultsMatchTheReferencePath) {
  Result<ir::Graph> g = ir::build_model("squeezenet1_1", {1, 64});
  ASSERT_TRUE(g.ok());
  auto halide = load(*g, options(ConfigPolicy::kHalideDefault));
  for (const StepInfo& s : halide->steps()) {
    if (!s.workload.empty()) {
      EXPECT_EQ(s.provider, "halide") << s.workload;
    }
  }
  auto reference = load(*g, options(ConfigPolicy::kReference));
  EXPECT_LE(relative_error(run(*halide), run(*reference)), 1e-3);
}

TEST(Executor, EachWorkloadCompilesOnceAndEveryNodeRunsItsOwnInstance) {
  Result<ir::Graph> g = ir::build_model("resnet18");
  ASSERT_TRUE(g.ok());
  auto e = load(*g, options(ConfigPolicy::kOnednn));
  std::set<std::string> distinct;
  int kernel_steps = 0;
  for (const StepInfo& s : e->steps())
    if (!s.workload.empty()) distinct.insert(s.workload), ++kernel_steps;
  EXPECT_EQ(e->compiled_kernels(), static_cast<int>(distinct.size()));
  EXPECT_EQ(e->kernel_steps(), kernel_steps);
  EXPECT_LT(e->compiled_kernels(), e->kernel_steps());
  // Shared code, own weights: running twice gives the same output (no instance packed another's weights).
  const std::vector<float> first = run(*e);
  EXPECT_EQ(run(*e), first);
  auto reference = load(*g, options(ConfigPolicy::kReference));
  EXPECT_LE(relative_error(first, run(*reference)), 1e-3);
}

TEST(Executor, PeakActivationMemoryIsAtMostHalfTheNaiveSum) {
  for (const std::string model : {"resnet18", "resnet50", "mobilenet_v2", "inception_v3", "squeezenet1_1"}) {
    Result<ir::Graph> g = ir::build_model(model);
    ASSERT_TRUE(g.ok());
    auto e = load(*g, options(ConfigPolicy::kOnednn));
    EXPECT_GT(e->arena_bytes(), 0);
    EXPECT_LE(e->arena_bytes() * 2, e->naive_bytes()) << model;
  }
}

// Options that run every convolution of `g` on oneDNN's config with activation format `format`
// ("plain": NCHW in and out; "nhwc": channels last), the other workloads on oneDNN's defaults.
ExecutorOptions onednn_convs_in(const ir::Graph& g, const std::string& format) {
  ExecutorOptions o = options(ConfigPolicy::kOnednn);
  Result<std::vector<std::pair<ir::FusedOp, ir::Workload>>> fused = ir::fuse_graph(g);
  if (!fused.ok()) throw std::runtime_error(fused.status().message());
  for (const auto& [f, w] : *fused)
    if (w.op == ir::OpKind::kConv2d)
      o.fixed_configs[w.key()] = ChosenConfig{kernels::Config{"onednn", {{"format", format}, {"algorithm", "direct"}}}};
  return o;
}

int concat_copies(const Executor& e) {
  return static_cast<int>(std::count_if(e.steps().begin(), e.steps().end(),
                                        [](const StepInfo& s) { return s.provider == "layout" && s.op == "concat"; }));
}

TEST(Executor, ConcatProducersWriteIntoTheirSliceWhenTheAxisHasOneOuterBlock) {
  for (int64_t batch : {1, 2}) {
    Result<ir::Graph> g = ir::build_model("squeezenet1_1", {batch, 64});
    ASSERT_TRUE(g.ok());
    auto e = load(*g, onednn_convs_in(*g, "plain"));
    const auto copies = std::count_if(e->steps().begin(), e->steps().end(),
                                      [](const StepInfo& s) { return s.provider == "layout" && s.op == "concat"; });
    if (batch == 1)
      EXPECT_EQ(copies, 0) << "batch 1: every fire module's concat is a view";
    else
      EXPECT_EQ(copies, 8) << "batch 2: channel slices are not contiguous, so concats copy";
    auto reference = load(*g, options(ConfigPolicy::kReference));
    EXPECT_LE(relative_error(run(*e), run(*reference)), 1e-3) << "batch " << batch;
  }
}

// Convolutions that write channels last keep the whole of SqueezeNet in that layout: pools adopt
// their producer's layout, and each fire module's concat copies each pixel's channels (one pass)
// instead of being a view of NCHW slices (a conversion in every producer and every reader). Every
// kernel's output but the global pool's (read by a flatten, a view) stays channels last, and so does
// every concat's; at batch 2 too, where channel slices of NCHW are not contiguous.
TEST(Executor, PoolsAndConcatsKeepAChannelsLastChain) {
  for (int64_t batch : {1, 2}) {
    Result<ir::Graph> g = ir::build_model("squeezenet1_1", {batch, 64});
    ASSERT_TRUE(g.ok());
    auto e = load(*g, onednn_convs_in(*g, "nhwc"));
    EXPECT_EQ(concat_copies(*e), 8) << "batch " << batch;
    EXPECT_EQ(e->native_layout_values(), e->kernel_steps() - 1 + 8) << "batch " << batch;
    auto reference = load(*g, options(ConfigPolicy::kReference));
    EXPECT_LE(relative_error(run(*e), run(*reference)), 1e-3) << "batch " << batch;
  }
  // ResNet-18: the stem's max pool and the global pool adopt channels last; only the global pool's
  // output (1x1 pixels, read by a flatten) and the dense layer's are plain.
  Result<ir::Graph> g = ir::build_model("resnet18", {1, 64});
  ASSERT_TRUE(g.ok());
  auto e = load(*g, onednn_convs_in(*g, "nhwc"));
  EXPECT_EQ(e->native_layout_values(), e->kernel_steps() - 2);
  auto reference = load(*g, options(ConfigPolicy::kReference));
  EXPECT_LE(relative_error(run(*e), run(*reference)), 1e-3);
}

// A stage timed at another thread count compiles its kernels again: a pool that adopted its
// producer's layout must adopt it in the new kernel too (else the chained input is refused).
TEST(Executor, AStageTimedAtAnotherThreadCountKeepsAdoptedLayouts) {
  Result<ir::Graph> g = ir::build_model("squeezenet1_1", {1, 64});
  ASSERT_TRUE(g.ok());
  ExecutorOptions o = onednn_convs_in(*g, "nhwc");
  o.reuse_memory = false;
  auto e = load(*g, o);
  int pool = -1;
  for (size_t i = 0; i < e->steps().size() && pool < 0; ++i)
    if (e->steps()[i].op == "max_pool2d") pool = static_cast<int>(i);
  ASSERT_GE(pool, 0);
  Result<double> t = e->time_stage({{pool}}, {o.threads + 1});
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_GT(*t, 0);
}

// Each of ResNet-18's eight residual convolutions is the last reader of its residual, in the same
// layout: it accumulates in the residual's memory (no copy of it first) and computes the same. Not
// when every activation has memory of its own (stages measured alone), nor where the residual's
// other reader runs at the same time (a stage schedule's group beside it).
TEST(Executor, ResidualConvolutionsAccumulateInTheResidualsMemory) {
  Result<ir::Graph> g = ir::build_model("resnet18", {1, 64});
  ASSERT_TRUE(g.ok());
  auto e = load(*g, onednn_convs_in(*g, "nhwc"));
  EXPECT_EQ(e->in_place_accumulations(), 8);
  auto reference = load(*g, options(ConfigPolicy::kReference));
  const std::vector<float> expected = run(*reference);
  EXPECT_LE(relative_error(run(*e), expected), 1e-3);
  EXPECT_LE(relative_error(run(*e), expected), 1e-3) << "a second run reads the residuals afresh";
  ExecutorOptions own = onednn_convs_in(*g, "nhwc");
  own.reuse_memory = false;
  EXPECT_EQ(load(*g, own)->in_place_accumulations(), 0);
}

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() / ("tp_executor_" + std::to_string(::getpid()) + ".db")).string();
    Result<std::unique_ptr<db::RecordStore>> s = db::open_store(path_, db::OpenMode::kCreate);
    ASSERT_TRUE(s.ok()) << s.status().message();
    store_ = std::move(*s);
  }
  void TearDown() override {
    store_.reset();
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + suffix);
  }
  void add(const ir::Workload& w, const std::string& device_key, const kernels::Config& c, double seconds) {
    measure::Record r;
    r.workload_key = w.key();
    r.device_key = device_key;
    r.target = device().target;
    r.provider = c.provider;
    r.config = c.knobs;
    r.costs = {seconds};
    r.timestamp = 1;
    ASSERT_TRUE(db::add_record(*store_, r).ok());
  }
  std::string path_;
  std::unique_ptr<db::RecordStore> store_;
};

TEST_F(StoreTest, ConfigsComeFromThisDeviceThenTheClosestDeviceThenDefaults) {
  Result<ir::Graph> g = ir::build_model("squeezenet1_1", {1, 64});
  ASSERT_TRUE(g.ok());
  auto plain = load(*g, options(ConfigPolicy::kOnednn));
  // Two conv workloads: the first tuned here (a Halide config), the second on another CPU with the
  // same compile target.
  std::vector<std::string> keys;
  for (const StepInfo& s : plain->steps())
    if (s.op == "conv2d" && std::find(keys.begin(), keys.end(), s.workload) == keys.end()) keys.push_back(s.workload);
  ASSERT_GE(keys.size(), 2u);
  const kernels::Provider* halide = *kernels::find_provider("halide");
  Result<ir::Workload> w0 = ir::parse_workload_key(keys[0]);
  Result<ir::Workload> w1 = ir::parse_workload_key(keys[1]);
  ASSERT_TRUE(w0.ok() && w1.ok());
  add(*w0, device().key(), halide->default_config(*w0), 1e-3);
  add(*w1, "x86_64-some-other-cpu-t1", halide->default_config(*w1), 1e-3);
  ExecutorOptions o = options(ConfigPolicy::kDatabase, store_.get());
  o.check_stored_configs = false;  // Halide's default configs are slow: keep them to see where they come from
  auto e = load(*g, o);
  int tuned = 0, closest = 0, defaults = 0;
  for (const StepInfo& s : e->steps()) {
    if (s.workload.empty()) continue;
    if (s.workload == keys[0]) {
      EXPECT_EQ(s.source, ConfigSource::kTuned);
      EXPECT_EQ(s.provider, "halide");
      ++tuned;
    } else if (s.workload == keys[1]) {
      EXPECT_EQ(s.source, ConfigSource::kClosestDevice);
      EXPECT_EQ(s.device, "x86_64-some-other-cpu-t1");
      ++closest;
    } else {
      EXPECT_EQ(s.source, ConfigSource::kDefault);
      ++defaults;
    }
  }
  EXPECT_GE(tuned, 1);
  EXPECT_GE(closest, 1);
  EXPECT_GE(defaults, 1);
  auto reference = load(*g, options(ConfigPolicy::kReference));
  EXPECT_LE(relative_error(run(*e), run(*reference)), 1e-3);
}

// A stored config far slower than oneDNN's default here (Halide's untuned default for a 3x3
// convolution: several times slower) gives way to the default. The note says why, and where
// oneDNN's default keeps its own layout between convolutions, the plain-layout Halide kernel is
// also charged the conversions it makes the chain do.
TEST_F(StoreTest, AStoredConfigSlowerThanOnednnsDefaultGivesWay) {
  Result<ir::Graph> g = ir::build_model("resnet18", {1, 112});
  ASSERT_TRUE(g.ok());
  const std::string key =
      "conv2d|float32[1,64,28,28];float32[64,64,3,3]|dilations=[1,1];groups=1;pads=[1,1,1,1];"
      "strides=[1,1]|bias+relu";
  Result<ir::Workload> w = ir::parse_workload_key(key);
  ASSERT_TRUE(w.ok()) << w.status().message();
  add(*w, device().key(), (*kernels::find_provider("halide"))->default_config(*w), 1e-6);
  ExecutorOptions o = options(ConfigPolicy::kDatabase, store_.get());
  std::vector<std::string> notes;
  o.progress = [&](std::string_view line) {
    if (line.find(key) != std::string_view::npos) notes.emplace_back(line);
  };
  auto e = load(*g, o);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("runs slower here than oneDNN's default ("), std::string::npos) << notes[0];
  const kernels::Provider* onednn = *kernels::find_provider("onednn");
  Result<std::unique_ptr<kernels::Kernel>> d =
      onednn->compile(*w, onednn->default_config(*w), kernels::CompileOptions{device().target, 1});
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(notes[0].find("ms of layout conversions against") != std::string::npos, kernels::has_native_layout(**d))
      << notes[0];
  bool seen = false;
  for (const StepInfo& s : e->steps()) {
    if (s.workload != key) continue;
    seen = true;
    EXPECT_EQ(s.provider, "onednn");
    EXPECT_EQ(s.source, ConfigSource::kDefault);
  }
  EXPECT_TRUE(seen) << "resnet18 at 112x112 has no workload " << key;
}

// Where oneDNN runs no kernel (a standalone ReLU), a stored Halide config that is not Halide's
// default of today is held against that default: a record measured before the default changed (or
// a tuned config that a later default beats) gives way when it runs slower. The stored config here,
// one parallel task per row of 7 elements, runs many times slower on 2 threads than the default
// (one serial task of eight-lane vectors for this tensor).
TEST_F(StoreTest, AStoredHalideConfigSlowerThanHalidesDefaultGivesWay) {
  ir::Graph g("relu");
  const ir::ValueId x = g.add_input("x", ir::TensorType{{1, 264, 7, 7}, ir::DType::kFloat32});
  Result<ir::ValueId> y = g.add_op(ir::OpKind::kRelu, "r", {x});
  ASSERT_TRUE(y.ok()) << y.status().message();
  g.mark_output(*y);
  const std::string key = "relu|float32[1,264,7,7]||";
  Result<ir::Workload> w = ir::parse_workload_key(key);
  ASSERT_TRUE(w.ok()) << w.status().message();
  const kernels::Config slow{"halide", {{"vector_width", 1}, {"unroll", 1}, {"parallel", "outer"}}};
  add(*w, device().key(), slow, 1e-9);
  ExecutorOptions o = options(ConfigPolicy::kDatabase, store_.get());
  o.threads = 2;
  std::vector<std::string> notes;
  o.progress = [&](std::string_view line) {
    if (line.find(key) != std::string_view::npos) notes.emplace_back(line);
  };
  auto e = load(g, o);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("runs slower here than Halide's default ("), std::string::npos) << notes[0];
  ASSERT_EQ(e->steps().size(), 1u);
  const StepInfo& s = e->steps()[0];
  EXPECT_EQ(s.provider, "halide");
  EXPECT_EQ(s.source, ConfigSource::kDefault);
  EXPECT_EQ(s.config, (*kernels::find_provider("halide"))->default_config(*w).knobs);
  EXPECT_TRUE(s.layouts.is_null()) << "a Halide kernel of plain tensors has no layouts: " << s.layouts.dump();
  std::mt19937_64 rng(5);
  e->input(0).fill_random(rng);
  ASSERT_TRUE(e->run().ok());
  for (int64_t i = 0; i < e->output(0).num_elements(); ++i)
    ASSERT_EQ(e->output(0).f32()[i], std::max(0.0f, e->input(0).f32()[i])) << i;

  // The same record with the check off runs as stored.
  o.check_stored_configs = false;
  notes.clear();
  auto kept = load(g, o);
  EXPECT_TRUE(notes.empty() || notes[0].find("slower") == std::string::npos);
  EXPECT_EQ(kept->steps()[0].source, ConfigSource::kTuned);
  EXPECT_EQ(kept->steps()[0].config, slow.knobs);
}

// A copying layout step whose output a concat places in its slice still runs (ShuffleNet-V2's
// chunk + concat: the first half of the concat is a slice of the input, copied in place).
TEST(Executor, ASliceWrittenIntoAConcatStillRuns) {
  ir::Graph g("chunk_concat");
  const ir::ValueId x = g.add_input("x", ir::TensorType{{1, 8, 4, 4}, ir::DType::kFloat32});
  auto half = [&](const std::string& name, int64_t from) {
    return g.add_op(ir::OpKind::kSlice, name, {x},
                    ir::Attrs{{"starts", std::vector<int64_t>{from}},
                              {"ends", std::vector<int64_t>{from + 4}},
                              {"axes", std::vector<int64_t>{1}}});
  };
  Result<ir::ValueId> a = half("a", 0), b = half("b", 4);
  ASSERT_TRUE(a.ok() && b.ok());
  Result<ir::ValueId> rb = g.add_op(ir::OpKind::kRelu, "rb", {*b});
  ASSERT_TRUE(rb.ok());
  Result<ir::ValueId> y = g.add_op(ir::OpKind::kConcat, "y", {*a, *rb}, ir::Attrs{{"axis", int64_t{1}}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  g.mark_output(*y);
  for (ConfigPolicy p : {ConfigPolicy::kOnednn, ConfigPolicy::kReference}) {
    auto e = load(g, options(p));
    std::mt19937_64 rng(5);
    e->input(0).fill_random(rng);
    const std::vector<float> in(e->input(0).f32(), e->input(0).f32() + 128);
    ASSERT_TRUE(e->run().ok());
    const float* out = e->output(0).f32();
    for (int i = 0; i < 64; ++i) ASSERT_EQ(out[i], in[i]) << "first half, element " << i;
    for (int i = 64; i < 128; ++i) ASSERT_EQ(out[i], std::max(in[i], 0.0f)) << "second half, element " << i;
  }
}

// ResNet-18's convolutions chain through oneDNN's blocked layout: after the stem, every activation
// between two convolutions (residuals included) stays blocked, and the result is unchanged.
TEST(Executor, BlockedLayoutsPropagateThroughChainsOfOnednnKernels) {
  Result<ir::Graph> g = ir::build_model("resnet18", {1, 64});
  ASSERT_TRUE(g.ok());
  auto e = load(*g, options(ConfigPolicy::kOnednn));
  int convs = 0;
  for (const StepInfo& s : e->steps()) convs += s.op == "conv2d";
  // 20 convolutions; the stem's output goes to a max pool and the last block's to the global pool.
  EXPECT_GE(e->native_layout_values(), convs - 3) << convs << " convolutions";
  auto reference = load(*g, options(ConfigPolicy::kReference));
  EXPECT_LE(relative_error(run(*e), run(*reference)), 1e-3);
}

// Each fused op's layout family as the executor's step for it runs it (Provider::expected_native_layout
// of the step's config), in the fused ops' order; a fused op with no step is a failure, left out.
std::vector<std::string> step_layouts(const ir::Graph& g,
                                      const std::vector<std::pair<ir::FusedOp, ir::Workload>>& fused,
                                      const Executor& e) {
  std::map<std::string, const StepInfo*> step_at;  // anchor node name -> step
  for (const StepInfo& s : e.steps()) step_at[s.name] = &s;
  std::vector<std::string> layouts;
  for (const auto& [f, w] : fused) {
    auto it = step_at.find(g.node(f.anchor).name);
    if (it == step_at.end()) {
      ADD_FAILURE() << "no step at " << g.node(f.anchor).name;
      continue;
    }
    Result<const kernels::Provider*> p = kernels::find_provider(it->second->provider);
    layouts.push_back(p.ok() ? (*p)->expected_native_layout(w, {it->second->provider, it->second->config}) : "");
  }
  return layouts;
}

// A zoo model with oneDNN's default configs loaded, beside its fused ops and each one's layout family
// as the executor's step runs it (step_layouts): what the estimates made before compiling
// (layout_chains.h, layout_copies.h) are checked against. Built in place: the executor keeps the graph.
struct OnednnSteps {
  OnednnSteps(const char* model, const ir::ModelOptions& model_options) {
    Result<ir::Graph> g = ir::build_model(model, model_options);
    if (!g.ok()) throw std::runtime_error(std::string(model) + ": " + g.status().message());
    graph = std::move(*g);
    executor = load(graph, options(ConfigPolicy::kOnednn));
    auto f = ir::fuse_graph(graph);
    if (!f.ok()) throw std::runtime_error(std::string(model) + ": " + f.status().message());
    fused = std::move(*f);
    layouts = step_layouts(graph, fused, *executor);
    if (layouts.size() != fused.size()) throw std::runtime_error(std::string(model) + ": a fused op has no step");
  }
  OnednnSteps(const OnednnSteps&) = delete;
  OnednnSteps& operator=(const OnednnSteps&) = delete;
  ir::Graph graph;
  std::unique_ptr<Executor> executor;
  std::vector<std::pair<ir::FusedOp, ir::Workload>> fused;
  std::vector<std::string> layouts;
};

// The estimate made before compiling (layout_chains.h) chains the activations the executor keeps in
// native layouts, on models with residual adds (ResNet-18), depthwise convs (MobileNet-V2), concats
// (SqueezeNet) and element-wise kernels between convolutions (RandWire, NASNet-A), with oneDNN's
// default configs (and Halide's for the element-wise ops).
TEST(Executor, EstimatedChainsAreTheExecutorsChains) {
  int passed_through = 0;  // element-wise kernels whose output stays in the chain's layout
  bool channels_last = false;
  for (const char* model : {"resnet18", "mobilenet_v2", "squeezenet1_1", "randwire", "nasnet_a_mobile"}) {
    const OnednnSteps m(model, {1, 64});
    const ir::Graph* g = &m.graph;
    const Executor* e = m.executor.get();
    const auto* fused = &m.fused;
    const std::vector<std::string>& layouts = m.layouts;
    channels_last |= std::find(layouts.begin(), layouts.end(), "onednn:nhwc") != layouts.end();
    std::vector<ir::NodeId> concats;
    std::vector<ChainedIo> chained = estimate_chained_io(*g, *fused, layouts, &concats);
    int outputs = 0, inputs = 0;
    for (const ChainedIo& c : chained) {
      outputs += c.output;
      inputs += c.input;
    }
    EXPECT_EQ(outputs + static_cast<int>(concats.size()), e->native_layout_values()) << model;
    // Every output kept in a layout has a reader taking it so: a kernel whose input is chained, the
    // residual add of a kernel's epilogue (its sum input takes the kernel's layout), or a
    // channels-last concat. (Counting chained inputs against outputs does not show it: an
    // element-wise kernel may take two chained outputs, an epilogue one beside the kernel's input.)
    std::vector<int> owner(g->nodes().size(), -1);
    for (size_t i = 0; i < fused->size(); ++i) {
      owner[static_cast<size_t>((*fused)[i].first.anchor)] = static_cast<int>(i);
      for (ir::NodeId n : (*fused)[i].first.fused) owner[static_cast<size_t>(n)] = static_cast<int>(i);
    }
    const std::set<ir::NodeId> concat_set(concats.begin(), concats.end());
    const std::vector<std::vector<ir::NodeId>> consumers = g->consumers();
    for (size_t i = 0; i < fused->size(); ++i) {
      if (!chained[i].output) continue;
      const ir::FusedOp& f = (*fused)[i].first;
      const ir::Node& last = g->node(f.fused.empty() ? f.anchor : f.fused.back());
      bool taken = false;
      for (ir::NodeId r : consumers[static_cast<size_t>(last.outputs[0])]) {
        const int j = owner[static_cast<size_t>(r)];
        const bool epilogue =
            j >= 0 && r != (*fused)[static_cast<size_t>(j)].first.anchor && g->node(r).op == ir::OpKind::kAdd;
        taken |= concat_set.count(r) > 0 || epilogue || (j >= 0 && chained[static_cast<size_t>(j)].input);
      }
      EXPECT_TRUE(taken) << model << ": " << last.name << " is kept in a layout that no reader takes";
    }
    EXPECT_GT(outputs, 5) << model;
    for (size_t i = 0; i < fused->size(); ++i)
      passed_through += chained[i].output && kernels::onednn::passes_layouts_through((*fused)[i].second);
    // NASNet-A's cells end in a concat of branch sums and of the cell's projected input, which its
    // branches read too; the next two cells read it through ReLUs. With channels-last convolutions
    // all of them stay channels last: at least the twelve normal cells' concats copy in that layout.
    if (std::string(model) == "nasnet_a_mobile" &&
        std::find(layouts.begin(), layouts.end(), "onednn:nhwc") != layouts.end())
      EXPECT_GE(concats.size(), 12u);
  }
  // RandWire's sums and ReLUs and NASNet-A's between channels-last convolutions (oneDNN's choice for
  // every convolution on AMD EPYC family 26; blocked layouts elsewhere pass only where the channels
  // fill whole blocks).
  if (channels_last) EXPECT_GT(passed_through, 0);
}

// The layout conversions estimated before compiling (ChainedIo::converted_bytes) are the ones the
// executor's element-wise kernels make inside: each "plain->K" input and "K->plain" output of a step
// (StepInfo::layouts) converts a tensor of the step's output size. NASNet-A's ReLUs on the cell
// before the last compute in their producer's layout and write plain for a slice.
TEST(Executor, EstimatedConversionsAreTheExecutorsConversions) {
  int64_t total = 0;
  for (const char* model : {"resnet18", "mobilenet_v2", "randwire", "nasnet_a_mobile"}) {
    const OnednnSteps m(model, {1, 64});
    const ir::Graph* g = &m.graph;
    const Executor* e = m.executor.get();
    const auto* fused = &m.fused;
    const std::vector<std::string>& layouts = m.layouts;
    const std::vector<ChainedIo> chained = estimate_chained_io(*g, *fused, layouts);
    std::map<std::string, int64_t> estimated, made;  // anchor name -> bytes converted
    for (size_t i = 0; i < fused->size(); ++i)
      if (chained[i].converted_bytes > 0) estimated[g->node((*fused)[i].first.anchor).name] = chained[i].converted_bytes;
    for (const StepInfo& s : e->steps()) {
      if (s.layouts.is_null() || s.workload.empty()) continue;
      Result<ir::Workload> w = ir::parse_workload_key(s.workload);
      ASSERT_TRUE(w.ok()) << s.workload;
      if (!kernels::onednn::passes_layouts_through(*w)) continue;
      int converted = s.layouts["out"].get<std::string>().find("->") != std::string::npos;
      for (const auto& in : s.layouts["in"]) converted += in.get<std::string>().find("->") != std::string::npos;
      if (converted > 0) made[s.name] = converted * w->output.num_bytes();
    }
    EXPECT_EQ(estimated, made) << model;
    for (const auto& [name, bytes] : made) total += bytes;
  }
  std::printf("bytes converted inside element-wise kernels, four models: %lld\n", static_cast<long long>(total));
}

// The layout copies estimated before compiling (layout_copies.h) are the layout steps the executor
// keeps: SqueezeNet's channels-last concats, Inception-V3's and NASNet-A's concats placed in their
// output (none kept) or copied, BERT's transposes and its reshapes (views), with oneDNN's default
// configs. Each copy moves its output's bytes twice (read and written).
TEST(Executor, EstimatedLayoutCopiesAreTheExecutorsLayoutSteps) {
  ir::ModelOptions small{1, 96};  // Inception-V3's smallest input is 75x75
  small.seq_len = 16;
  int channels_last_total = 0, copies_total = 0;
  bool squeezenet_channels_last = false;
  for (const char* model : {"squeezenet1_1", "inception_v3", "nasnet_a_mobile", "bert_base"}) {
    const OnednnSteps m(model, small);
    const ir::Graph* g = &m.graph;
    const Executor* e = m.executor.get();
    const auto* fused = &m.fused;
    const std::vector<std::string>& layouts = m.layouts;
    if (std::string(model) == "squeezenet1_1")
      squeezenet_channels_last = std::find(layouts.begin(), layouts.end(), "onednn:nhwc") != layouts.end();
    std::vector<ir::NodeId> channels_last;
    estimate_chained_io(*g, *fused, layouts, &channels_last);
    std::set<std::string> estimated, kept;
    for (const LayoutCopy& c : estimate_layout_copies(*g, *fused, channels_last)) {
      const ir::Node& n = g->node(c.node);
      estimated.insert(n.name);
      int64_t out_bytes = 0;
      for (ir::ValueId o : n.outputs) out_bytes += g->type(o).num_bytes();
      EXPECT_EQ(c.bytes, 2 * out_bytes) << model << " " << n.name;
      channels_last_total += c.channels_last;
    }
    for (const StepInfo& s : e->steps())
      if (s.provider == "layout") kept.insert(s.name);
    EXPECT_EQ(estimated, kept) << model;
    copies_total += static_cast<int>(kept.size());
  }
  // SqueezeNet's fire modules concat channels last where oneDNN runs its convolutions so (its choice
  // on the AVX-512 hosts so far); with blocked layouts (an AVX2-only AMD EPYC family 25 model 1,
  // 8-channel blocks) its concats keep plain tensors.
  if (squeezenet_channels_last) EXPECT_GT(channels_last_total, 0);
  EXPECT_GT(copies_total, channels_last_total);  // BERT's transposes at least
}

// A pure copy of a number of bytes at a measured bandwidth; nothing, or no bandwidth, costs nothing.
TEST(LayoutCopies, CopySecondsAreBytesOverBandwidth) {
  EXPECT_DOUBLE_EQ(copy_seconds(2'000'000'000, 50), 0.04);
  EXPECT_DOUBLE_EQ(copy_seconds(1'000'000, 25), 4e-5);
  EXPECT_EQ(copy_seconds(0, 50), 0);
  EXPECT_EQ(copy_seconds(100, 0), 0);
}

// A Halide kernel in the middle of a chain of oneDNN kernels reads and writes plain tensors: the
// activations around it are converted, the others stay blocked, and the output is right.
TEST_F(StoreTest, AHalideKernelBetweenBlockedOnednnKernelsGetsPlainTensors) {
  Result<ir::Graph> g = ir::build_model("resnet18", {1, 64});
  ASSERT_TRUE(g.ok());
  auto onednn_only = load(*g, options(ConfigPolicy::kOnednn));
  std::string key;  // a 3x3 convolution inside a residual block (runs twice)
  for (const StepInfo& s : onednn_only->steps())
    if (s.workload.find("float32[64,64,3,3]") != std::string::npos &&
        s.workload.find("|bias+relu") != std::string::npos)
      key = s.workload;
  ASSERT_FALSE(key.empty());
  Result<ir::Workload> w = ir::parse_workload_key(key);
  ASSERT_TRUE(w.ok());
  add(*w, device().key(), (*kernels::find_provider("halide"))->default_config(*w), 1e-6);
  ExecutorOptions o = options(ConfigPolicy::kDatabase, store_.get());
  o.check_stored_configs = false;
  auto mixed = load(*g, o);
  int halide_steps = 0;
  for (const StepInfo& s : mixed->steps()) halide_steps += s.provider == "halide";
  EXPECT_GE(halide_steps, 2);
  EXPECT_GT(mixed->native_layout_values(), 0);
  EXPECT_LT(mixed->native_layout_values(), onednn_only->native_layout_values());
  auto reference = load(*g, options(ConfigPolicy::kReference));
  EXPECT_LE(relative_error(run(*mixed), run(*reference)), 1e-3);
}

TEST(Executor, UnsupportedDtypesAreOneLineErrors) {
  ir::Graph g("ints");
  ir::ValueId x = g.add_input("x", ir::TensorType{{4}, ir::DType::kInt64});
  Result<ir::ValueId> y = g.add_op(ir::OpKind::kRelu, "r", {x});
  ASSERT_TRUE(y.ok());
  g.mark_output(*y);
  Result<std::unique_ptr<Executor>> e = Executor::load(g, options(ConfigPolicy::kOnednn));
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(e.status().message().find("'x'"), std::string::npos) << e.status().message();
}

}  // namespace
}  // namespace tensorperf::runtime
