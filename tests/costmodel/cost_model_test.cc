// Cost models: learning a known latency function, saved files that predict the same, and the
// errors a wrong file gives.
#include "costmodel/cost_model.h"
#include "costmodel/device_table.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include <gtest/gtest.h>

#include "costmodel/metrics.h"
#include "costmodel/roofline.h"
#include "features/leaf_features.h"
#include "features/program_features.h"
#include "measure/device.h"

namespace tensorperf::costmodel {
namespace {

// Samples whose latency is a known smooth function of three program columns and one device column,
// the other columns noise the model must learn to ignore.
std::vector<Sample> synthetic(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 10.0f);
  std::vector<Sample> out;
  for (size_t i = 0; i < n; ++i) {
    Sample s;
    s.program.assign(features::pooled_feature_names().size(), 0.0f);
    s.device.assign(measure::device_feature_names().size(), 0.0f);
    for (size_t c = 0; c < 12; ++c) s.program[c * 7] = u(rng);
    s.device[1] = static_cast<float>(1 + i % 2);  // threads
    s.device[9] = 50 + 10 * u(rng);               // peak GFLOP/s
    const double x = s.program[7], y = s.program[14], z = s.program[21];
    s.seconds = 1e-4 * std::exp(0.35 * x - 0.2 * y + 0.02 * y * z) * 100.0 / s.device[9];
    s.workload = "w" + std::to_string(i % 40);
    s.device_key = "d" + std::to_string(i % 2);
    s.provider = "halide";
    out.push_back(std::move(s));
  }
  return out;
}

// `samples` with 0-40 random leaves each, at positions of a shallow loop tree.
std::vector<Sample> with_random_leaves(std::vector<Sample> samples, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> count(0, 40);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (Sample& s : samples) {
    const int n = count(rng);
    for (int i = 0; i < n; ++i) {
      std::vector<float> leaf(features::leaf_feature_names().size());
      for (float& v : leaf) v = u(rng);
      s.leaves.push_back(std::move(leaf));
      s.positions.push_back({i + 1, 1 + i % 3, 0});
    }
  }
  return samples;
}

std::vector<double> seconds_of(const std::vector<Sample>& s) {
  std::vector<double> out;
  for (const Sample& x : s) out.push_back(x.seconds);
  return out;
}

std::vector<std::string> groups_of(const std::vector<Sample>& s) {
  std::vector<std::string> out;
  for (const Sample& x : s) out.push_back(x.workload + "@" + x.device_key);
  return out;
}

class EveryCostModel : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryCostModel, RecoversAKnownFunction) {
  std::vector<Sample> train = synthetic(2000, 1), test = synthetic(400, 2);
  auto model = make_cost_model(GetParam());
  ASSERT_TRUE(model.ok());
  ASSERT_TRUE((*model)->fit(train).ok());
  auto predicted = (*model)->predict(test);
  ASSERT_TRUE(predicted.ok()) << predicted.status().ToString();
  Metrics m = evaluate(*predicted, seconds_of(test), groups_of(test));
  EXPECT_LT(m.mape, 0.10) << "MAPE " << m.mape;
  EXPECT_GT(m.pairwise, 0.9);
  // What a model that ignores the features scores: the mean latency for every sample.
  double mean = 0;
  for (double s : seconds_of(train)) mean += s / static_cast<double>(train.size());
  Metrics flat = evaluate(std::vector<double>(test.size(), mean), seconds_of(test), groups_of(test));
  EXPECT_GT(flat.mape, 5 * m.mape);
}

TEST_P(EveryCostModel, SavedModelPredictsTheSame) {
  std::vector<Sample> train = synthetic(300, 3), test = synthetic(50, 4);
  auto model = make_cost_model(GetParam());
  ASSERT_TRUE(model.ok() && (*model)->fit(train).ok());
  const std::string path = ::testing::TempDir() + "/" + GetParam() + "_model.json";
  ASSERT_TRUE(save_cost_model(**model, path).ok());
  auto loaded = load_cost_model(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ((*loaded)->kind(), GetParam());
  auto a = (*model)->predict(test), b = (*loaded)->predict(test);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
}

// A new device 2.5x slower than its description says (what a device vector cannot tell): the
// pre-trained model is off by that factor there; fine-tuning with a few of its samples corrects it,
// and a copy made before is left as it was.
TEST_P(EveryCostModel, FineTuningLearnsANewDevice) {
  std::vector<Sample> train = synthetic(1000, 7), fresh = synthetic(240, 8);
  for (Sample& s : fresh) {
    s.seconds *= 2.5;
    s.device_key = "d2";
  }
  const std::vector<Sample> few(fresh.begin(), fresh.begin() + 40), test(fresh.begin() + 40, fresh.end());
  auto model = make_cost_model(GetParam());
  ASSERT_TRUE(model.ok());
  EXPECT_EQ((*model)->fine_tune(few).code(), StatusCode::kInvalidArgument) << "not trained yet";
  ASSERT_TRUE((*model)->fit(train).ok());
  auto before = (*model)->predict(test);
  ASSERT_TRUE(before.ok());
  const Metrics pre = evaluate(*before, seconds_of(test), groups_of(test));
  EXPECT_GT(pre.mape, 0.4) << "the pre-trained model should not know the new device";
  auto copy = copy_cost_model(**model);
  ASSERT_TRUE(copy.ok()) << copy.status().ToString();
  {
    // Fewer than kMinFineTuneSamples are too few to judge with: the model stays as it was.
    auto other = copy_cost_model(**model);
    ASSERT_TRUE(other.ok());
    const std::vector<Sample> nine(few.begin(), few.begin() + 9);
    ASSERT_TRUE((*other)->fine_tune(nine).ok());
    auto same = (*other)->predict(test);
    ASSERT_TRUE(same.ok());
    EXPECT_EQ(*same, *before);
  }
  ASSERT_TRUE((*model)->fine_tune(few).ok());
  auto after = (*model)->predict(test);
  ASSERT_TRUE(after.ok());
  const Metrics tuned = evaluate(*after, seconds_of(test), groups_of(test));
  EXPECT_LT(tuned.mape, 0.5 * pre.mape) << "pre-trained " << pre.mape << ", fine-tuned " << tuned.mape;
  EXPECT_GT(tuned.pairwise, 0.85);
  auto unchanged = (*copy)->predict(test);
  ASSERT_TRUE(unchanged.ok());
  EXPECT_EQ(*unchanged, *before);
  std::vector<Sample> none;
  EXPECT_EQ((*model)->fine_tune(none).code(), StatusCode::kInvalidArgument);
}

// Every model fine-tunes only as far as cross-validation on the new samples says it helps
// (fine_tune_validation.h). Samples whose latencies are the pre-trained model's own predictions
// times noise hold nothing to learn: they leave the model as it was (xgb's 60 fixed rounds, and the
// neural models' unconditional epochs, fitted their noise and moved every prediction). A device the
// model is 2.5x off on is learned (FineTuningLearnsANewDevice).
TEST_P(EveryCostModel, FineTuningFitsNoNoise) {
  std::vector<Sample> train = synthetic(1000, 7), fresh = synthetic(400, 8);
  auto model = make_cost_model(GetParam());
  ASSERT_TRUE(model.ok() && (*model)->fit(train).ok());
  auto own = (*model)->predict(fresh);
  ASSERT_TRUE(own.ok());
  // Noise of mean 0 over the fine-tuning samples: no bias to learn either.
  std::mt19937_64 rng(9);
  std::normal_distribution<double> normal(0.0, 0.3);
  std::vector<double> noise(fresh.size());
  for (double& e : noise) e = normal(rng);
  double mean = 0;
  for (size_t i = 0; i < 200; ++i) mean += noise[i] / 200;
  for (size_t i = 0; i < fresh.size(); ++i) {
    fresh[i].device_key = "d2";
    fresh[i].seconds = (*own)[i] * std::exp(noise[i] - (i < 200 ? mean : 0.0));
  }
  const std::vector<Sample> few(fresh.begin(), fresh.begin() + 200), test(fresh.begin() + 200, fresh.end());
  auto before = (*model)->predict(test);
  ASSERT_TRUE(before.ok());
  ASSERT_TRUE((*model)->fine_tune(few).ok());
  auto after = (*model)->predict(test);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*after, *before);
}

// Without a regulariser weight, knowing the target programs changes nothing.
TEST_P(EveryCostModel, FitAdaptedWithoutARegulariserIsFit) {
  std::vector<Sample> train = synthetic(200, 9), target = synthetic(60, 10);
  auto a = make_cost_model(GetParam()), b = make_cost_model(GetParam());
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE((*a)->fit(train).ok());
  ASSERT_TRUE((*b)->fit_adapted(train, target).ok());
  EXPECT_EQ(*(*a)->predict(target), *(*b)->predict(target));
}

// CDMPP's regulariser: the transformer trained with it still learns the function, and differently.
TEST(CostModel, TransformerWithTheMomentRegulariserStillLearns) {
  std::vector<Sample> train = synthetic(1000, 11), target = synthetic(200, 12);
  for (Sample& s : target) s.program[21] += 3;  // target programs sit elsewhere in one column
  CostModelOptions o;
  o.cmd_weight = 0.5;
  auto plain = make_cost_model("transformer"), adapted = make_cost_model("transformer", o);
  ASSERT_TRUE(plain.ok() && adapted.ok());
  ASSERT_TRUE((*plain)->fit(train).ok());
  ASSERT_TRUE((*adapted)->fit_adapted(train, target).ok());
  const std::vector<Sample> test = synthetic(200, 13);
  auto p = (*plain)->predict(test), q = (*adapted)->predict(test);
  ASSERT_TRUE(p.ok() && q.ok());
  EXPECT_NE(*p, *q);
  EXPECT_LT(evaluate(*q, seconds_of(test), groups_of(test)).mape, 0.25);
}

// The transformer batches programs by leaf count: each prediction is the one the program gets alone.
TEST(CostModel, TransformerPredictionsDoNotDependOnTheBatch) {
  std::vector<Sample> samples = with_random_leaves(synthetic(300, 14), 15);
  CostModelOptions o;
  o.epochs = 2;
  auto model = make_cost_model("transformer", o);
  ASSERT_TRUE(model.ok());
  ASSERT_TRUE((*model)->fit(samples).ok());
  auto together = (*model)->predict(samples);
  ASSERT_TRUE(together.ok()) << together.status().ToString();
  for (size_t i = 0; i < samples.size(); i += 7) {
    auto alone = (*model)->predict(std::span<const Sample>(&samples[i], 1));
    ASSERT_TRUE(alone.ok());
    EXPECT_NEAR((*together)[i], (*alone)[0], 1e-4 * (*alone)[0]) << "sample " << i << " with " << samples[i].leaves.size()
                                                                 << " leaves";
  }
}

// Training and prediction run torch on one intra-op thread per worker, and prediction spreads its
// batches of 512 over `threads` workers: a model trained and used with 3 threads predicts exactly
// what one with 1 thread does, on a set of several batches.
TEST(CostModel, TransformerIsTheSameOnAnyThreadCount) {
  std::vector<Sample> samples = with_random_leaves(synthetic(1300, 16), 17);
  std::vector<std::vector<double>> predicted;
  for (int threads : {1, 3}) {
    CostModelOptions o;
    o.epochs = 1;
    o.threads = threads;
    auto model = make_cost_model("transformer", o);
    ASSERT_TRUE(model.ok());
    ASSERT_TRUE((*model)->fit(std::span<const Sample>(samples).first(300)).ok());
    auto p = (*model)->predict(samples);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    predicted.push_back(*p);
  }
  ASSERT_EQ(predicted[0].size(), samples.size());
  for (double v : predicted[1]) ASSERT_GT(v, 0.0);
  EXPECT_EQ(predicted[0], predicted[1]);
}

// Latency carried by the leaves alone (the pooled program vector is all zeros): the transformer must
// read it through its encoder, and predict (the fused inference path over only the real leaves) must
// agree with what training fitted (the masked path over padded batches).
TEST(CostModel, TransformerLearnsALatencyFromTheLeaves) {
  auto make = [](size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> base(0.0f, 2.0f), noise(-0.05f, 0.05f), u(0.0f, 1.0f);
    std::uniform_int_distribution<int> count(1, 32);
    std::vector<Sample> out;
    for (size_t i = 0; i < n; ++i) {
      Sample s;
      s.program.assign(features::pooled_feature_names().size(), 0.0f);
      s.device.assign(measure::device_feature_names().size(), 0.0f);
      const float b = base(rng);
      const int leaves = count(rng);
      for (int j = 0; j < leaves; ++j) {
        std::vector<float> leaf(features::leaf_feature_names().size(), 0.0f);
        leaf[0] = b + noise(rng);
        leaf[1] = u(rng);  // a distractor
        s.leaves.push_back(std::move(leaf));
        s.positions.push_back({j + 1, 1 + j % 3, 0});
      }
      s.seconds = 1e-4 * std::exp(1.5 * b);
      s.workload = "w" + std::to_string(i % 40);
      s.device_key = "d0";
      s.provider = "halide";
      out.push_back(std::move(s));
    }
    return out;
  };
  const std::vector<Sample> train = make(1500, 21), test = make(300, 22);
  CostModelOptions o;
  o.epochs = 40;
  auto model = make_cost_model("transformer", o);
  ASSERT_TRUE(model.ok());
  ASSERT_TRUE((*model)->fit(train).ok());
  auto predicted = (*model)->predict(test);
  ASSERT_TRUE(predicted.ok()) << predicted.status().ToString();
  const Metrics m = evaluate(*predicted, seconds_of(test), groups_of(test));
  EXPECT_LT(m.mape, 0.12) << "MAPE " << m.mape;
  double mean = 0;
  for (double s : seconds_of(train)) mean += s / static_cast<double>(train.size());
  EXPECT_GT(evaluate(std::vector<double>(test.size(), mean), seconds_of(test), groups_of(test)).mape, 3 * m.mape);
}

// The transformer's program encoder reads the cross features and its target is relative to the
// roofline estimate; a file of an older build (narrower encoder, seconds as the target) is refused
// with a message that says to retrain, not loaded into the wrong shapes.
TEST(CostModel, TransformerFilesOfAnOlderArchitectureSayRetrain) {
  CostModelOptions o;
  o.epochs = 2;
  auto model = make_cost_model("transformer", o);
  ASSERT_TRUE(model.ok() && (*model)->fit(with_random_leaves(synthetic(200, 31), 32)).ok());
  const std::string path = ::testing::TempDir() + "/transformer_arch.json";
  ASSERT_TRUE(save_cost_model(**model, path).ok());
  nlohmann::json file = nlohmann::json::parse(std::ifstream(path));
  EXPECT_EQ(file["payload"]["architecture"]["target"], "box_cox_seconds_over_roofline");
  ASSERT_TRUE(load_cost_model(path).ok());
  nlohmann::json older = file;
  older["payload"]["architecture"].erase("program_inputs");
  older["payload"]["architecture"].erase("target");
  std::ofstream(path) << older.dump();
  auto s = load_cost_model(path);
  EXPECT_EQ(s.status().code(), StatusCode::kCorruption);
  EXPECT_NE(s.status().message().find("retrain"), std::string::npos) << s.status().message();
}

TEST_P(EveryCostModel, FitAndPredictCheckTheirInput) {
  auto model = make_cost_model(GetParam());
  ASSERT_TRUE(model.ok());
  std::vector<Sample> none;
  EXPECT_EQ((*model)->fit(none).code(), StatusCode::kInvalidArgument);
  std::vector<Sample> train = synthetic(20, 6);
  EXPECT_FALSE((*model)->predict(train).ok()) << "not trained yet";
  train[3].seconds = 0;
  EXPECT_EQ((*model)->fit(train).code(), StatusCode::kInvalidArgument);
  train[3].seconds = 1e-3;
  train[4].program.pop_back();
  EXPECT_EQ((*model)->fit(train).code(), StatusCode::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryCostModel, ::testing::Values("xgb", "mlp", "transformer", "ensemble"),
                         [](const auto& info) { return info.param; });

// The ensemble predicts the geometric mean of xgb and mlp, each trained alone on the same samples
// with the same seed (both are deterministic given it).
TEST(CostModel, EnsembleIsTheGeometricMeanOfItsMembers) {
  std::vector<Sample> train = synthetic(400, 7), test = synthetic(60, 8);
  CostModelOptions o;
  o.seed = 3;
  auto ensemble = make_cost_model("ensemble", o), xgb = make_cost_model("xgb", o), mlp = make_cost_model("mlp", o);
  ASSERT_TRUE(ensemble.ok() && xgb.ok() && mlp.ok());
  ASSERT_TRUE((*ensemble)->fit(train).ok() && (*xgb)->fit(train).ok() && (*mlp)->fit(train).ok());
  auto e = (*ensemble)->predict(test), x = (*xgb)->predict(test), m = (*mlp)->predict(test);
  ASSERT_TRUE(e.ok() && x.ok() && m.ok());
  size_t apart = 0;
  for (size_t i = 0; i < test.size(); ++i) {
    EXPECT_NEAR((*e)[i], std::sqrt((*x)[i] * (*m)[i]), 1e-9 * (*e)[i]) << i;
    if (std::abs((*x)[i] / (*m)[i] - 1) > 1e-3) ++apart;
  }
  EXPECT_GT(apart, test.size() / 2) << "the members must differ for the mean to be tested";
}

TEST(CostModel, EnsembleFilesMustHoldBothMembers) {
  std::vector<Sample> train = synthetic(100, 9);
  auto model = make_cost_model("ensemble");
  ASSERT_TRUE(model.ok() && (*model)->fit(train).ok());
  const std::string path = ::testing::TempDir() + "/ensemble_members.json";
  ASSERT_TRUE(save_cost_model(**model, path).ok());
  nlohmann::json file = nlohmann::json::parse(std::ifstream(path));
  ASSERT_EQ(file["payload"]["members"].size(), 2u);
  EXPECT_EQ(file["payload"]["members"][0]["kind"], "xgb");
  EXPECT_EQ(file["payload"]["members"][1]["kind"], "mlp");
  nlohmann::json swapped = file;
  std::swap(swapped["payload"]["members"][0], swapped["payload"]["members"][1]);
  std::ofstream(path) << swapped.dump();
  auto s = load_cost_model(path);
  EXPECT_EQ(s.status().code(), StatusCode::kCorruption);
  EXPECT_NE(s.status().message().find("'xgb'"), std::string::npos) << s.status().message();
  nlohmann::json one = file;
  one["payload"]["members"].erase(1);
  std::ofstream(path) << one.dump();
  EXPECT_EQ(load_cost_model(path).status().code(), StatusCode::kCorruption);
}

TEST(CostModel, WrongFilesAreClearErrors) {
  std::vector<Sample> train = synthetic(100, 5);
  auto model = make_cost_model("xgb");
  ASSERT_TRUE(model.ok() && (*model)->fit(train).ok());
  const std::string dir = ::testing::TempDir();
  ASSERT_TRUE(save_cost_model(**model, dir + "/good.json").ok());
  std::ifstream in(dir + "/good.json");
  nlohmann::json file = nlohmann::json::parse(in);
  auto write = [&](const std::string& name, const nlohmann::json& j) {
    std::ofstream(dir + "/" + name) << j.dump();
    return dir + "/" + name;
  };
  nlohmann::json other_schema = file;
  other_schema["schema"]["program"].push_back("a_feature_this_build_lacks");
  auto s = load_cost_model(write("schema.json", other_schema));
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("retrain"), std::string::npos) << s.status().message();
  nlohmann::json other_version = file;
  other_version["version"] = kCostModelFileVersion + 1;
  EXPECT_EQ(load_cost_model(write("version.json", other_version)).status().code(), StatusCode::kInvalidArgument);
  nlohmann::json other_kind = file;
  other_kind["kind"] = "crystal_ball";
  EXPECT_EQ(load_cost_model(write("kind.json", other_kind)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(file["payload"]["target"], kRooflineTarget);
  nlohmann::json other_target = file;
  other_target["payload"]["target"] = "ln_cubits";
  EXPECT_EQ(load_cost_model(write("target.json", other_target)).status().code(), StatusCode::kInvalidArgument);
  nlohmann::json broken = file;
  broken["payload"]["booster"] = "{not a booster";
  EXPECT_FALSE(load_cost_model(write("broken.json", broken)).ok());
  std::ofstream(dir + "/text.json") << "hello";
  EXPECT_EQ(load_cost_model(dir + "/text.json").status().code(), StatusCode::kCorruption);
  EXPECT_EQ(load_cost_model(dir + "/missing.json").status().code(), StatusCode::kNotFound);
}

// The file keeps the descriptions of the devices the model was trained on, as they were: their
// vectors are what the model learned. A file without them (older ones) loads with none.
TEST(CostModel, FilesKeepTheDevicesTheyWereTrainedOn) {
  std::vector<Sample> train = synthetic(100, 5);
  auto model = make_cost_model("xgb");
  ASSERT_TRUE(model.ok() && (*model)->fit(train).ok());
  measure::Device d;
  d.arch = "x86_64";
  d.cpu_model = "AMD EPYC";
  d.cpu_signature = "f26m2";
  d.isa = "avx512";
  d.isa_features = {"sse41", "avx", "avx2", "fma", "avx512f"};
  d.target = "x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41";
  d.cores = 2;
  d.threads = 2;
  d.l1d_bytes = 49152;
  d.peak_gflops = 252.4;
  d.mem_bandwidth_gbs = 47.2;
  d.clock_mhz = 2095.979;
  DeviceTable trained;
  trained.add(d);
  const std::string dir = ::testing::TempDir();
  ASSERT_TRUE(save_cost_model(**model, dir + "/with_devices.json", &trained).ok());
  DeviceTable back;
  auto loaded = load_cost_model(dir + "/with_devices.json", {}, &back);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  ASSERT_EQ(back.size(), 1u);
  const measure::Device* got = back.find(d.key());
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(got->features(), d.features());
  EXPECT_EQ(back.find("x86_64-amd-epyc-f26m2-avx512-t1"), nullptr);

  ASSERT_TRUE(save_cost_model(**model, dir + "/without.json").ok());
  DeviceTable none;
  ASSERT_TRUE(load_cost_model(dir + "/without.json", {}, &none).ok());
  EXPECT_EQ(none.size(), 0u);
  std::ifstream in(dir + "/with_devices.json");
  nlohmann::json file = nlohmann::json::parse(in);
  file["devices"][0].erase("peak_gflops");
  std::ofstream(dir + "/bad_device.json") << file.dump();
  DeviceTable bad;
  EXPECT_EQ(load_cost_model(dir + "/bad_device.json", {}, &bad).status().code(), StatusCode::kCorruption);
}

TEST(CostModel, UnknownNamesAreNotFound) {
  EXPECT_EQ(make_cost_model("oracle").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace tensorperf::costmodel
