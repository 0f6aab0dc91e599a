// One model loaded once in tensorperf's executor, timed on request: the tensorperf peer of
// bench/e2e/e2e_bench.py, which interleaves it with ONNX Runtime and PyTorch.
//
//   e2e_runner ONNX_FILE BATCH THREADS CONFIGS [DB_URL]
// Prints "ready <peak_activation_bytes> <naive_bytes> <coverage json>" once loaded, then for each
// line "N" on stdin runs the model N times and prints "<median run ms> <median sum of step ms>".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <random>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "db/record_store.h"
#include "ir/onnx/onnx_import.h"
#include "measure/device.h"
#include "runtime/executor.h"

using namespace tensorperf;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int fail(const std::string& msg) {
  std::fprintf(stderr, "e2e_runner: %s\n", msg.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) return fail("usage: e2e_runner ONNX_FILE BATCH THREADS CONFIGS [DB_URL]");
  ir::OnnxImportOptions io;
  io.batch = std::stoll(argv[2]);
  Result<ir::Graph> g = ir::import_onnx(argv[1], io);
  if (!g.ok()) return fail(g.status().message());
  measure::DeviceOptions d;
  d.threads = std::stoi(argv[3]);
  Result<measure::Device> device = measure::detect_device(d);
  if (!device.ok()) return fail(device.status().message());
  Result<runtime::ConfigPolicy> policy = runtime::parse_policy(argv[4]);
  if (!policy.ok()) return fail(policy.status().message());
  std::unique_ptr<db::RecordStore> store;
  if (argc > 5) {
    Result<std::unique_ptr<db::RecordStore>> s = db::open_store(argv[5], db::OpenMode::kRead);
    if (!s.ok()) return fail(s.status().message());
    store = std::move(*s);
  }
  runtime::ExecutorOptions o;
  o.policy = *policy;
  o.store = store.get();
  o.device_key = device->key();
  o.target = device->target;
  o.threads = device->threads;
  Result<std::unique_ptr<runtime::Executor>> e = runtime::Executor::load(*g, o);
  if (!e.ok()) return fail(e.status().message());
  runtime::Executor& ex = **e;
  std::mt19937_64 rng(1);
  for (size_t i = 0; i < ex.num_inputs(); ++i) ex.input(i).fill_random(rng);
  nlohmann::json coverage = {{"tuned", 0}, {"closest", 0}, {"default", 0}};
  std::set<std::string> seen;
  for (const runtime::StepInfo& s : ex.steps())
    if (!s.workload.empty() && seen.insert(s.workload).second)
      coverage[std::string(runtime::source_name(s.source))] = coverage[std::string(runtime::source_name(s.source))].get<int>() + 1;
  std::printf("ready %lld %lld %s\n", static_cast<long long>(ex.arena_bytes()), static_cast<long long>(ex.naive_bytes()),
              coverage.dump().c_str());
  std::fflush(stdout);
  std::string line;
  while (std::getline(std::cin, line)) {
    const int n = std::max(1, std::stoi(line));
    std::vector<double> runs, sums;
    for (int i = 0; i < n; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      if (Status s = ex.run(); !s.ok()) return fail(s.message());
      runs.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    for (int i = 0; i < std::max(1, n / 2); ++i) {
      std::vector<double> steps;
      if (Status s = ex.run_timed(steps); !s.ok()) return fail(s.message());
      double sum = 0;
      for (double t : steps) sum += t;
      sums.push_back(sum * 1e3);
    }
    std::printf("%.4f %.4f\n", median(runs), median(sums));
    std::fflush(stdout);
  }
  return 0;
}
