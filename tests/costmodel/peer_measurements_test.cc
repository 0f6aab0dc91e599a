// Peer measurements: the shift between two devices, which peer a sample gets, the table's file
// form; and xgb-peers, which predicts a new device from them where the features cannot.
#include "costmodel/peer_measurements.h"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "costmodel/cost_model.h"
#include "costmodel/metrics.h"
#include "features/program_features.h"
#include "measure/device.h"

namespace tensorperf::costmodel {
namespace {

struct DeviceSpec {
  std::string key;
  float threads, gflops, bandwidth;
};

// A sample of program `program` (its config) on `device`, measured at `seconds`.
Sample sample(const DeviceSpec& device, int program, double seconds) {
  Sample s;
  s.program.assign(features::pooled_feature_names().size(), 0.0f);
  s.device.assign(measure::device_feature_names().size(), 0.0f);
  s.device[device_column("threads")] = device.threads;
  s.device[device_column("peak_gflops")] = device.gflops;
  s.device[device_column("mem_bandwidth_gbs")] = device.bandwidth;
  s.device[device_column("isa_avx2")] = 1;
  s.workload = "conv2d|w" + std::to_string(program % 7);
  s.provider = "halide";
  s.config = "{\"tile\":" + std::to_string(program) + "}";
  s.device_key = device.key;
  s.seconds = seconds;
  return s;
}

const DeviceSpec kA{"a-t1", 1, 50, 20}, kB{"b-t1", 1, 60, 25}, kC{"c-t2", 2, 100, 30};

double program_seconds(int program) { return 1e-4 * (1 + program % 13) * (1 + 0.1 * (program % 5)); }

TEST(PeerTable, ASampleGetsItsProgramOnAnotherDeviceMovedByTheirShift) {
  // b is 2x slower than a on every program both measured, exactly.
  std::vector<Sample> measured;
  for (int p = 0; p < 40; ++p) {
    measured.push_back(sample(kA, p, program_seconds(p)));
    measured.push_back(sample(kB, p, 2 * program_seconds(p)));
  }
  measured.push_back(sample(kB, 100, 8e-4));  // only b measured program 100
  PeerTable table;
  table.add(measured);
  EXPECT_EQ(table.devices(), 2u);
  EXPECT_EQ(table.programs(), 41u);

  const double unit = 1e-5;
  const auto c = table.columns(sample(kA, 100, 0), unit);
  EXPECT_NEAR(c[0], std::log(4e-4 / unit), 1e-4) << "b's 8e-4 s moved by a/b = 0.5";
  EXPECT_NEAR(c[1], 0.0, 1e-6) << "an exact shift has no spread";
  EXPECT_NEAR(c[2], std::log(4e-4 / unit), 1e-4);
  EXPECT_NEAR(c[3], 0.0, 1e-6);
  EXPECT_NEAR(c[4], std::log(50.0 / 60.0), 1e-5);
  EXPECT_NEAR(c[5], std::log(20.0 / 25.0), 1e-5);
  EXPECT_EQ(c[6], 1.0f);

  // A device is never its own peer: program 100 on b has none.
  const auto own = table.columns(sample(kB, 100, 0), unit);
  for (float v : own) EXPECT_TRUE(std::isnan(v));
  // Nor has a program no device measured.
  for (float v : table.columns(sample(kA, 999, 0), unit)) EXPECT_TRUE(std::isnan(v));
}

TEST(PeerTable, ThePeerWhoseShiftIsSteadiestIsTakenAndTheConsensusWeighsAll) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(0.0, 0.3);
  std::vector<Sample> measured;
  for (int p = 0; p < 60; ++p) {
    measured.push_back(sample(kA, p, program_seconds(p)));
    measured.push_back(sample(kB, p, 3 * program_seconds(p) * std::exp(noise(rng))));  // noisy
    measured.push_back(sample(kC, p, 0.5 * program_seconds(p) * std::exp(0.01 * noise(rng))));  // steady
  }
  measured.push_back(sample(kB, 200, 9e-4));
  measured.push_back(sample(kC, 200, 1.5e-4));
  PeerTable table;
  table.add(measured);
  const auto c = table.columns(sample(kA, 200, 0), 1.0);
  EXPECT_NEAR(c[0], std::log(3e-4), 0.02) << "c's 1.5e-4 s moved by a/c = 2";
  EXPECT_LT(c[1], 0.01);
  EXPECT_NEAR(c[3], std::log(1.0 / 2.0), 1e-5) << "c has 2 threads";
  EXPECT_NEAR(c[2], std::log(3e-4), 0.05) << "both peers say about 3e-4 s, the steady one counts most";
  EXPECT_EQ(c[6], 2.0f);
}

TEST(PeerTable, ADeviceItHasNoShiftForTakesTheClosestDevice) {
  std::vector<Sample> measured = {sample(kA, 5, 1e-4), sample(kC, 5, 4e-4)};
  PeerTable table;
  table.add(measured);
  const DeviceSpec fresh{"new-t2", 2, 110, 32};  // like c
  const auto c = table.columns(sample(fresh, 5, 0), 1.0);
  EXPECT_NEAR(c[0], std::log(4e-4), 1e-4) << "c's seconds, no shift to move them by";
  EXPECT_TRUE(std::isnan(c[1]));
  EXPECT_TRUE(std::isnan(c[2]));
  EXPECT_NEAR(c[3], 0.0, 1e-6);
  EXPECT_EQ(c[6], 2.0f);
}

TEST(PeerTable, ItsFileFormGivesTheSameColumnsAndDamageIsCorruption) {
  std::vector<Sample> measured;
  for (int p = 0; p < 30; ++p) {
    measured.push_back(sample(kA, p, program_seconds(p)));
    measured.push_back(sample(kA, p, 1.1 * program_seconds(p)));  // a repeat
    measured.push_back(sample(kC, p, 0.7 * program_seconds(p)));
  }
  PeerTable table;
  table.add(measured);
  auto back = PeerTable::from_json(nlohmann::json::parse(table.to_json().dump()));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  for (int p : {0, 7, 29}) {
    const auto x = table.columns(sample(kA, p, 0), 1e-6), y = back->columns(sample(kA, p, 0), 1e-6);
    for (size_t i = 0; i < kPeerColumns; ++i) {
      if (std::isnan(x[i])) {
        EXPECT_TRUE(std::isnan(y[i]));
      } else {
        EXPECT_FLOAT_EQ(x[i], y[i]) << peer_column_names()[i];
      }
    }
  }
  nlohmann::json j = table.to_json();
  j["programs"][0][2] = 7;  // a device the table does not have
  EXPECT_EQ(PeerTable::from_json(j).status().code(), StatusCode::kCorruption);
  EXPECT_EQ(PeerTable::from_json(nlohmann::json::array()).status().code(), StatusCode::kCorruption);
  EXPECT_EQ(PeerTable::from_json({{"devices", nlohmann::json::array()}}).status().code(), StatusCode::kCorruption);
}

// Latency with a per-program factor that no feature shows (how a config happens to run on real
// hardware), the same on every device up to the device's speed. Pre-trained on two devices and
// fine-tuned with 5% of a third's samples, xgb-peers predicts the third from the others'
// measurements; xgb cannot know the factor.
TEST(PeerTable, XgbPeersPredictsANewDeviceFromTheOthersMeasurements) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<float> u(0.0f, 10.0f);
  std::normal_distribution<double> hidden(0.0, 0.5), noise(0.0, 0.03);
  const DeviceSpec fresh{"d-t2", 2, 140, 40};
  std::vector<Sample> train, share, test;
  for (int p = 0; p < 800; ++p) {
    const float x = u(rng);
    const double factor = std::exp(hidden(rng));
    auto at = [&](const DeviceSpec& d, double speed) {
      Sample s = sample(d, p, 1e-4 * std::exp(0.3 * x) * factor / speed * std::exp(noise(rng)));
      s.program[7] = x;
      return s;
    };
    train.push_back(at(kA, 1.0));
    train.push_back(at(kC, 2.0));
    (p % 20 == 0 ? share : test).push_back(at(fresh, 2.6));
  }
  auto mape_of = [&](const std::string& name) {
    auto model = make_cost_model(name, {.threads = 1, .seed = 1});
    EXPECT_TRUE(model.ok());
    EXPECT_TRUE((*model)->fit(train).ok());
    EXPECT_TRUE((*model)->fine_tune(share).ok());
    auto predicted = (*model)->predict(test);
    EXPECT_TRUE(predicted.ok());
    std::vector<double> measured;
    for (const Sample& s : test) measured.push_back(s.seconds);
    return evaluate(*predicted, measured, std::vector<std::string>(test.size(), "w")).mape;
  };
  const double peers = mape_of("xgb-peers"), plain = mape_of("xgb");
  EXPECT_LT(peers, 0.12) << "xgb-peers MAPE " << peers;
  EXPECT_GT(plain, 3 * peers) << "xgb " << plain << " against xgb-peers " << peers;
}

// A program no other device measured (an unseen network's) is still predicted from its features:
// the training rows whose peer columns were hidden taught the trees that case.
TEST(PeerTable, XgbPeersStillPredictsProgramsNoDeviceMeasured) {
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<float> u(0.0f, 10.0f);
  std::vector<Sample> train, unseen;
  for (int p = 0; p < 1200; ++p) {
    const float x = u(rng);
    for (const DeviceSpec* d : {&kA, &kC}) {
      Sample s = sample(*d, p, 1e-4 * std::exp(0.3 * x) / (d == &kC ? 2.0 : 1.0));
      s.program[7] = x;
      (p < 1000 ? train : unseen).push_back(s);
    }
  }
  auto model = make_cost_model("xgb-peers", {.threads = 1, .seed = 2});
  ASSERT_TRUE(model.ok() && (*model)->fit(train).ok());
  auto predicted = (*model)->predict(unseen);
  ASSERT_TRUE(predicted.ok());
  std::vector<double> measured;
  for (const Sample& s : unseen) measured.push_back(s.seconds);
  const double mape = evaluate(*predicted, measured, std::vector<std::string>(unseen.size(), "w")).mape;
  EXPECT_LT(mape, 0.08) << "MAPE " << mape;
}

}  // namespace
}  // namespace tensorperf::costmodel
