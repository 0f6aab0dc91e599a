#include "measure/runner.h"

#include <dlfcn.h>
#include <sys/mman.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>

#include "measure/worker.h"

namespace tensorperf::measure {
namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::json;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

double unix_now() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

std::vector<const kernels::HostTensor*> pointers(const std::vector<kernels::HostTensor>& ts) {
  std::vector<const kernels::HostTensor*> ps;
  for (const auto& t : ts) ps.push_back(&t);
  return ps;
}

// Worker-side setup: pin to the device's CPUs and tell the thread pools their size before any starts.
void enter_device(const Device& d) {
  (void)pin_current_thread(pinned_cpus(d.threads));  // unpinned still measures, only noisier
  std::string n = std::to_string(d.threads);
  ::setenv("HL_NUM_THREADS", n.c_str(), 1);  // Halide reads it when its pool starts, in this worker
  ::setenv("OMP_NUM_THREADS", n.c_str(), 1);
  // OpenMP (oneDNN's runtime) read OMP_NUM_THREADS when it was loaded, before this fork, and would
  // start one thread per CPU of the profiler, all pinned to the worker's CPUs: a 1-thread device
  // then spends ~8 ms per kernel in barriers. When the process has OpenMP, set its count directly.
  using SetThreads = void (*)(int);
  if (auto set = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "omp_set_num_threads"))) set(d.threads);
}

std::string clip(std::string s, size_t n = 1500) {
  if (s.size() > n) s = s.substr(0, n) + "...";
  return s;
}

}  // namespace

WorkloadRunner::WorkloadRunner(const ir::Workload& workload, const Device& device, const MeasureOptions& options)
    : workload_(workload), device_(device), options_(options) {}

Result<std::unique_ptr<WorkloadRunner>> WorkloadRunner::create(const ir::Workload& workload, const Device& device,
                                                               const MeasureOptions& options) {
  std::unique_ptr<WorkloadRunner> r(new WorkloadRunner(workload, device, options));
  std::mt19937_64 rng(options.seed ^ std::hash<std::string>{}(workload.key()));
  for (const auto& type : kernels::kernel_input_types(workload)) {
    r->inputs_.emplace_back(type);
    r->inputs_.back().fill_random(rng);
  }
  if (!options.check_output) return r;

  // The reference runs in a worker too (it may use oneDNN, whose threads must stay out of this
  // process); it leaves its output in shared memory.
  r->reference_ = kernels::HostTensor(workload.output);
  const size_t bytes = static_cast<size_t>(workload.output.num_bytes());
  void* shared = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED)
    return Status::IoError("mmap of " + std::to_string(bytes) + " bytes for the reference output failed");
  const WorkloadRunner& self = *r;
  WorkerOutcome out = run_worker(
      [&](const SendFn& send) {
        enter_device(self.device_);
        kernels::HostTensor result(self.workload_.output);
        Status s = kernels::run_reference(self.workload_, pointers(self.inputs_), result);
        if (s.ok()) std::memcpy(shared, result.bytes(), bytes);
        send({{"ok", s.ok()}, {"msg", s.message()}});
      },
      {options.reference_timeout_s});
  std::memcpy(r->reference_.bytes(), shared, bytes);
  ::munmap(shared, bytes);
  const std::string what = "reference kernel for " + workload.key();
  if (out.messages.empty()) {
    if (out.ending == WorkerOutcome::Ending::kTimedOut)
      return Status::Timeout(what + " ran past " + std::to_string(options.reference_timeout_s) + " s");
    return Status::Internal(what + ": " + out.describe());
  }
  if (!out.messages[0].value("ok", false))
    return Status::Internal(what + " failed: " + out.messages[0].value("msg", ""));
  return r;
}

Record WorkloadRunner::measure(const kernels::Provider& provider, const kernels::Config& config) const {
  Record rec;
  rec.workload_key = workload_.key();
  rec.device_key = device_.key();
  rec.target = device_.target;
  rec.provider = provider.name();
  rec.config = config.knobs;

  // Worker protocol: {"stage":"built", "build_time", ["error", "msg"]} then
  // {"stage":"done", "run_time", "costs" | "error", "msg"}.
  WorkerOutcome out = run_worker(
      [&](const SendFn& send) {
        enter_device(device_);
        auto start = Clock::now();
        Result<std::unique_ptr<kernels::Kernel>> kernel = Status::Internal("not compiled");
        try {
          kernel = provider.compile(workload_, config, {device_.target, device_.threads});
        } catch (const std::exception& e) {
          kernel = Status::Internal(std::string("exception while compiling: ") + e.what());
        }
        json built = {{"stage", "built"}, {"build_time", seconds_since(start)}};
        if (!kernel.ok()) {
          bool bad_knob = kernel.status().code() == StatusCode::kInvalidArgument;
          built["error"] = static_cast<int>(bad_knob ? ErrorCode::kInstantiationError : ErrorCode::kCompileHostError);
          built["msg"] = kernel.status().message();
          send(built);
          return;
        }
        send(built);

        start = Clock::now();
        json done = {{"stage", "done"}};
        auto fail = [&](ErrorCode e, const std::string& msg) {
          done["error"] = static_cast<int>(e);
          done["msg"] = msg;
          done["run_time"] = seconds_since(start);
          send(done);
        };
        const auto ins = pointers(inputs_);
        kernels::HostTensor output(workload_.output);
        try {
          Status s = (*kernel)->run(ins, output);
          if (!s.ok()) return fail(ErrorCode::kRuntimeDeviceError, s.message());
          if (options_.check_output) {
            double err = kernels::max_scaled_error(output, reference_, options_.atol, options_.rtol);
            if (!(err <= 1.0))  // NaN is wrong too
              return fail(ErrorCode::kWrongAnswerError,
                          "output differs from the reference: max scaled error " + std::to_string(err) + " (atol " +
                              std::to_string(options_.atol) + ", rtol " + std::to_string(options_.rtol) + ")");
          }
          auto timing = time_runs([&] { return (*kernel)->run(ins, output); }, options_.timing);
          if (!timing.ok()) return fail(ErrorCode::kRuntimeDeviceError, timing.status().message());
          done["costs"] = timing->costs;
          done["number"] = timing->number;
          done["run_time"] = seconds_since(start);
          send(done);
        } catch (const std::exception& e) {
          fail(ErrorCode::kRuntimeDeviceError, std::string("exception: ") + e.what());
        }
      },
      {options_.build_timeout_s, options_.run_timeout_s});
  rec.timestamp = unix_now();

  const json* built = out.messages.size() > 0 ? &out.messages[0] : nullptr;
  const json* done = out.messages.size() > 1 ? &out.messages[1] : nullptr;
  if (built) rec.build_time_s = built->value("build_time", 0.0);
  if (done) rec.run_time_s = done->value("run_time", 0.0);
  auto error = [&](ErrorCode e, std::string msg) {
    rec.error = e;
    rec.error_msg = clip(std::move(msg));
    rec.costs.clear();
    return rec;
  };
  if (built && built->contains("error"))
    return error(static_cast<ErrorCode>(built->value("error", 8)), built->value("msg", ""));
  if (done && done->contains("error")) {
    std::string msg = done->value("msg", "");
    if (!out.output_tail.empty()) msg += "; worker output: " + out.output_tail;
    return error(static_cast<ErrorCode>(done->value("error", 8)), msg);
  }
  if (done) {
    rec.costs = done->value("costs", std::vector<double>{});
    return rec;
  }
  // The worker never reported the end of its stage.
  if (out.ending == WorkerOutcome::Ending::kTimedOut) {
    if (!built) {
      rec.build_time_s = options_.build_timeout_s;
      return error(ErrorCode::kBuildTimeoutError,
                   "compiling took longer than " + std::to_string(options_.build_timeout_s) + " s");
    }
    rec.run_time_s = options_.run_timeout_s;
    return error(ErrorCode::kRunTimeoutError,
                 "running took longer than " + std::to_string(options_.run_timeout_s) + " s");
  }
  if (out.ending == WorkerOutcome::Ending::kSignaled)
    return error(built ? ErrorCode::kRuntimeDeviceError : ErrorCode::kCompileHostError,
                 std::string(built ? "while running: " : "while compiling: ") + out.describe());
  return error(ErrorCode::kUnknownError, out.describe());
}

}  // namespace tensorperf::measure
