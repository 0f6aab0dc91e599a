// costmodel_bench: how many predictions per second each cost model makes with the features given
// (what a tuner screening candidates or a whole-model prediction needs), next to what computing the
// features costs (lowering + extraction, per config). Samples: the default and random valid Halide
// configs of a zoo model's workloads on this device; latencies for training are synthetic (only the
// prediction speed is measured here; accuracy is `tensorperf eval`'s).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "costmodel/cost_model.h"
#include "ir/models/zoo.h"
#include "ir/task_extraction.h"
#include "kernels/halide/halide_provider.h"
#include "measure/device.h"
#include "measure/sampler.h"

namespace {

using namespace tensorperf;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"costmodel_bench: predictions/s of each cost model with features given, next to feature extraction"};
  std::string model_name = "resnet18";
  int configs = 8, predictions = 100000, threads = 2, rounds = 5;
  app.add_option("--model", model_name, "zoo model whose workloads give the samples")->capture_default_str();
  app.add_option("--configs", configs, "random valid configs per workload")->capture_default_str();
  app.add_option("--predictions", predictions, "predictions per timed batch")->capture_default_str();
  app.add_option("--threads", threads, "prediction threads")->capture_default_str();
  app.add_option("--rounds", rounds, "timed batches (the median is quoted)")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  auto graph = ir::build_model(model_name);
  auto device = measure::detect_device({});
  if (!graph.ok() || !device.ok()) {
    std::fprintf(stderr, "costmodel_bench: %s\n", (!graph.ok() ? graph.status() : device.status()).message().c_str());
    return 1;
  }
  auto tasks = ir::extract_tasks(*graph);
  const kernels::Provider& halide = kernels::halide::halide_provider();
  std::vector<costmodel::Sample> samples;
  std::vector<double> feature_s;
  for (const ir::Task& t : *tasks) {
    if (!halide.supports(t.workload)) continue;
    std::vector<kernels::Config> cs = {halide.default_config(t.workload)};
    for (const kernels::Config& c : measure::sample_configs(halide.space(t.workload), "halide",
                                                            measure::SamplerKind::kRandom, configs * 20, 1)) {
      if (static_cast<int>(cs.size()) > configs) break;
      if (halide.validate(t.workload, c).ok()) cs.push_back(c);
    }
    for (const kernels::Config& c : cs) {
      const auto t0 = Clock::now();
      auto s = costmodel::make_sample(t.workload, c, device->target, device->features(), device->key());
      feature_s.push_back(since(t0));
      if (!s.ok()) continue;
      // A synthetic latency: FLOPs at a fraction of the peak that depends on the config.
      s->seconds = t.workload.flops() / (device->peak_gflops * 1e9) * (1.5 + std::abs(s->program[40]));
      samples.push_back(std::move(*s));
    }
  }
  std::sort(feature_s.begin(), feature_s.end());
  const double feature_med = feature_s[feature_s.size() / 2];
  std::printf("costmodel_bench: %zu samples of %s on %s, prediction threads %d, median of %d batches of %d\n\n",
              samples.size(), model_name.c_str(), device->key().c_str(), threads, rounds, predictions);
  std::printf("%-12s %14s %16s %22s\n", "model", "train s", "predictions/s", "feature extraction/s");
  std::vector<costmodel::Sample> batch;
  for (int i = 0; i < predictions; ++i) batch.push_back(samples[static_cast<size_t>(i) % samples.size()]);
  for (const costmodel::CostModelEntry& e : costmodel::cost_models()) {
    auto model = e.make(costmodel::CostModelOptions{threads, 1});
    auto t0 = Clock::now();
    if (Status s = model->fit(samples); !s.ok()) {
      std::fprintf(stderr, "costmodel_bench: %s: %s\n", e.name, s.message().c_str());
      return 1;
    }
    const double train_s = since(t0);
    std::vector<double> rates;
    for (int r = 0; r < rounds; ++r) {
      t0 = Clock::now();
      auto p = model->predict(batch);
      const double s = since(t0);
      if (!p.ok()) {
        std::fprintf(stderr, "costmodel_bench: %s: %s\n", e.name, p.status().message().c_str());
        return 1;
      }
      rates.push_back(static_cast<double>(batch.size()) / s);
    }
    std::sort(rates.begin(), rates.end());
    std::printf("%-12s %14.2f %16.0f %22.1f\n", e.name, train_s, rates[rates.size() / 2], 1.0 / feature_med);
  }
  std::printf("\npredictions/s: features given (a batch of %d rows); feature extraction/s: lowering + features of one "
              "config, one thread (median %.1f ms).\n",
              predictions, feature_med * 1e3);
  return 0;
}
