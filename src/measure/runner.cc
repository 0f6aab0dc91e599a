#include "measure/runner.h"

#include <dlfcn.h>
#include <poll.h>
#include <time.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <string>

#include "base/unix_time.h"
#include "base/worker.h"
#include "kernels/native_io.h"

namespace tensorperf::measure {
namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::json;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// CPU seconds of the calling thread: a compile's time even when the worker was stopped meanwhile.
double thread_cpu_seconds() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// MemAvailable of /proc/meminfo in bytes; 0 when unknown.
double available_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024.0;
  return 0;
}


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

// provider.compile(), with an exception turned into an Internal error.
Result<std::unique_ptr<kernels::Kernel>> compile_caught(const kernels::Provider& provider, const ir::Workload& w,
                                                        const kernels::Config& config,
                                                        const kernels::CompileOptions& options) {
  try {
    return provider.compile(w, config, options);
  } catch (const std::exception& e) {
    return Status::Internal(std::string("exception while compiling: ") + e.what());
  }
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
  // Every tensor at once: the inputs, the reference (and its shared copy), a worker's output and
  // whatever the kernel packs; refuse before allocating anything when that cannot fit.
  TP_RETURN_IF_ERROR(ir::check_size(workload.output, "kernel output"));
  double needed = 4.0 * static_cast<double>(workload.output.num_bytes());
  for (const auto& type : kernels::kernel_input_types(workload)) {
    TP_RETURN_IF_ERROR(ir::check_size(type, "kernel input"));
    needed += 2.0 * static_cast<double>(type.num_bytes());
  }
  if (const double available = available_memory_bytes(); available > 0 && needed > available)
    return Status::InvalidArgument(workload.key() + " needs about " + std::to_string(needed / (1 << 30)) +
                                   " GiB for its tensors; this machine has " + std::to_string(available / (1 << 30)) +
                                   " GiB available");
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

std::unique_ptr<kernels::Kernel> WorkloadRunner::compile_stage(const Candidate& c, const SendFn& send) const {
  const double start = thread_cpu_seconds();
  Result<std::unique_ptr<kernels::Kernel>> kernel =
      compile_caught(*c.provider, workload_, c.config, {device_.target, device_.threads});
  json built = {{"stage", "built"}, {"build_time", thread_cpu_seconds() - start}};
  if (!kernel.ok()) {
    bool bad_knob = kernel.status().code() == StatusCode::kInvalidArgument;
    built["error"] = static_cast<int>(bad_knob ? ErrorCode::kInstantiationError : ErrorCode::kCompileHostError);
    built["msg"] = kernel.status().message();
    send(built);
    return nullptr;
  }
  send(built);
  return std::move(kernel).value();
}

void WorkloadRunner::run_stage(kernels::Kernel& kernel, const SendFn& send, json done, double stop_above_s) const {
  const auto start = Clock::now();
  auto fail = [&](ErrorCode e, const std::string& msg) {
    done["error"] = static_cast<int>(e);
    done["msg"] = msg;
    done["run_time"] = seconds_since(start);
    send(done);
  };
  const auto ins = pointers(inputs_);
  kernels::HostTensor output(workload_.output);
  try {
    Status s = kernel.run(ins, output);
    if (!s.ok()) return fail(ErrorCode::kRuntimeDeviceError, s.message());
    if (options_.check_output) {
      double err = kernels::max_scaled_error(output, reference_, options_.atol, options_.rtol);
      if (!(err <= 1.0))  // NaN is wrong too
        return fail(ErrorCode::kWrongAnswerError,
                    "output differs from the reference: max scaled error " + std::to_string(err) + " (atol " +
                        std::to_string(options_.atol) + ", rtol " + std::to_string(options_.rtol) + ")");
    }
    // The checked first run was a run like any warm-up run: it counts as the first one.
    TimingOptions timing_options = options_.timing;
    timing_options.warmup = std::max(0, timing_options.warmup - 1);
    timing_options.stop_above_s = stop_above_s;
    auto timing = time_runs([&] { return kernel.run(ins, output); }, timing_options);
    if (!timing.ok()) return fail(ErrorCode::kRuntimeDeviceError, timing.status().message());
    done["costs"] = timing->costs;
    done["number"] = timing->number;
    // A kernel with a native layout is timed again as a graph chains it: another instance of its
    // code, its activation input and output already in that layout (no conversions).
    if (kernels::has_native_layout(kernel)) {
      std::unique_ptr<kernels::Kernel> chained = kernel.new_instance();
      if (chained) {
        Result<kernels::NativeIo> io = kernels::NativeIo::prepare(*chained, workload_, options_.seed);
        if (!io.ok()) return fail(ErrorCode::kRuntimeDeviceError, "native layouts: " + io.status().message());
        auto native = time_runs([&] { return chained->run(io->inputs(), io->output()); }, options_.timing);
        if (!native.ok()) return fail(ErrorCode::kRuntimeDeviceError, "in native layouts: " + native.status().message());
        done["native_costs"] = native->costs;
      }
    }
    done["run_time"] = seconds_since(start);
    send(done);
  } catch (const std::exception& e) {
    fail(ErrorCode::kRuntimeDeviceError, std::string("exception: ") + e.what());
  }
}

void WorkloadRunner::also_stage(const Candidate& c, const kernels::Kernel& kernel, const SendFn& send) const {
  for (size_t j = 0; j < options_.also_on.size(); ++j) {
    const Device& d = options_.also_on[j];
    json message = {{"stage", "also"}, {"device", j}};
    std::unique_ptr<kernels::Kernel> other = kernel.instance_with_threads(d.threads);
    if (!other) {  // the thread count is in the code: compile for it
      const double start = thread_cpu_seconds();
      Result<std::unique_ptr<kernels::Kernel>> compiled =
          compile_caught(*c.provider, workload_, c.config, {d.target, d.threads});
      message["build_time"] = thread_cpu_seconds() - start;
      if (!compiled.ok()) {
        message["error"] = static_cast<int>(ErrorCode::kCompileHostError);
        message["msg"] = compiled.status().message();
        send(message);
        continue;
      }
      other = std::move(compiled).value();
    }
    (void)pin_current_thread(pinned_cpus(d.threads));
    run_stage(*other, send, message);
  }
}

Record WorkloadRunner::measure(const kernels::Provider& provider, const kernels::Config& config) const {
  // Worker protocol: {"stage":"built", "build_time", ["error", "msg"]} then
  // {"stage":"done", "run_time", "costs" | "error", "msg"}.
  const Candidate c{&provider, config};
  WorkerOutcome out = run_worker(
      [&](const SendFn& send) {
        enter_device(device_);
        std::unique_ptr<kernels::Kernel> kernel = compile_stage(c, send);
        if (kernel) run_stage(*kernel, send);
      },
      {options_.build_timeout_s, options_.run_timeout_s});
  return record_from(c, out);
}

Record WorkloadRunner::record_from(const Candidate& c, const WorkerOutcome& out) const {
  const json* built = out.messages.size() > 0 ? &out.messages[0] : nullptr;
  const json* done = nullptr;
  for (const json& m : out.messages)
    if (m.value("stage", "") == "done") done = &m;
  return make_record(c, device_, built, done, out);
}

Record WorkloadRunner::make_record(const Candidate& c, const Device& device, const json* built, const json* done,
                                   const WorkerOutcome& out) const {
  Record rec;
  rec.workload_key = workload_.key();
  rec.device_key = device.key();
  rec.target = device.target;
  rec.provider = c.provider->name();
  rec.config = c.config.knobs;
  rec.timestamp = unix_seconds();
  rec.load = load_average();
  rec.clock_mhz = device.clock_mhz;

  if (built) rec.build_time_s = built->value("build_time", 0.0);
  if (done) {
    rec.run_time_s = done->value("run_time", 0.0);
    rec.build_time_s += done->value("build_time", 0.0);  // an also_on device it was compiled again for
  }
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
    rec.native_costs = done->value("native_costs", std::vector<double>{});
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

CpuPlan plan_cpus(int timing_threads) {
  CpuPlan plan;
  plan.timing = pinned_cpus(timing_threads);
  for (int cpu : pinned_cpus(1 << 16))
    if (std::find(plan.timing.begin(), plan.timing.end(), cpu) == plan.timing.end()) plan.build.push_back(cpu);
  plan.exclusive = plan.build.empty();
  return plan;
}

namespace {

// A worker waits for its turn to time: 'g', then the double stop_above_s of its timing as 8 bytes.
void send_go(Worker& w, double stop_above_s) {
  if (!w.signal('g')) return;
  char bytes[sizeof(double)];
  std::memcpy(bytes, &stop_above_s, sizeof bytes);
  for (char b : bytes)
    if (!w.signal(b)) return;
}

std::optional<double> receive_go(const ReceiveFn& receive) {
  if (receive() != 'g') return std::nullopt;
  unsigned char bytes[sizeof(double)];
  for (unsigned char& b : bytes) {
    const int c = receive();
    if (c < 0) return std::nullopt;
    b = static_cast<unsigned char>(c);
  }
  double v = 0;
  std::memcpy(&v, bytes, sizeof v);
  return v;
}

// One candidate's worker in measure_batch.
struct Slot {
  enum class State { kCompiling, kBuilt, kTiming };
  size_t index = 0;
  std::unique_ptr<Worker> worker;
  bool shared = false;  // compiles on the timing CPUs: stopped while a timing runs
  State state = State::kCompiling;
  Clock::time_point phase_start;  // of the current state
  double stopped_s = 0;           // compiling time spent stopped (not counted against the limit)
  std::optional<Clock::time_point> stopped_at;
};

}  // namespace

Status WorkloadRunner::measure_batch(const std::vector<Candidate>& candidates,
                                     const std::function<Status(size_t, Record)>& on_record,
                                     const std::function<Status(size_t, size_t, Record)>& on_also,
                                     const std::function<double(size_t)>& stop_above_s) const {
  if (options_.build_jobs < 1) return Status::InvalidArgument("build_jobs must be at least 1");
  for (const Device& d : options_.also_on)
    if (d.target != device_.target || d.threads < 1 || d.threads > device_.threads)
      return Status::InvalidArgument("also timing on " + d.key() + " needs the target of " + device_.key() +
                                     " and at most its " + std::to_string(device_.threads) + " thread(s)");
  // Timing a candidate includes its timings on the also_on devices.
  const double run_timeout_s = options_.run_timeout_s * static_cast<double>(1 + options_.also_on.size());
  auto has_done = [](const std::vector<json>& msgs) {
    return std::any_of(msgs.begin(), msgs.end(), [](const json& m) { return m.value("stage", "") == "done"; });
  };
  for (const Candidate& c : candidates) {
    Status warm = c.provider->warm_up(device_.target);
    if (!warm.ok()) return warm.WithContext("warming up the " + c.provider->name() + " compiler");
  }
  const CpuPlan cpus = plan_cpus(device_.threads);
  std::vector<Slot> slots;
  size_t next = 0;
  bool timing = false;

  auto compiling = [&](Slot& s) { return s.state == Slot::State::kCompiling; };
  auto start_worker = [&](size_t i) {
    Slot s;
    s.index = i;
    s.phase_start = Clock::now();
    size_t dedicated = 0;
    for (Slot& o : slots) dedicated += compiling(o) && !o.shared;
    s.shared = dedicated >= cpus.build.size();
    const std::vector<int>& where = s.shared ? cpus.timing : cpus.build;
    const Candidate& c = candidates[i];
    s.worker = Worker::start([&, c](const SendFn& send, const ReceiveFn& receive) {
      enter_device(device_);
      (void)pin_current_thread(where);
      std::unique_ptr<kernels::Kernel> kernel = compile_stage(c, send);
      if (!kernel) return;
      const std::optional<double> stop_above = receive_go(receive);
      if (!stop_above) return;
      // Fewer threads first: nothing the main timing starts (thread pools) is left running then.
      also_stage(c, *kernel, send);
      (void)pin_current_thread(cpus.timing);
      run_stage(*kernel, send, {{"stage", "done"}}, *stop_above);
    });
    slots.push_back(std::move(s));
  };
  auto set_stopped = [&](bool stop) {
    for (Slot& s : slots) {
      if (!compiling(s) || !s.shared) continue;
      if (stop && !s.stopped_at) {
        s.worker->stop();
        s.stopped_at = Clock::now();
      } else if (!stop && s.stopped_at) {
        s.stopped_s += std::chrono::duration<double>(Clock::now() - *s.stopped_at).count();
        s.stopped_at.reset();
        s.worker->resume();
      }
    }
  };
  // Ends slot k (kill: it timed out) and hands its record over.
  auto finish = [&](size_t k, bool kill) -> Status {
    Slot s = std::move(slots[k]);
    slots.erase(slots.begin() + static_cast<std::ptrdiff_t>(k));
    if (s.state == Slot::State::kTiming) {
      timing = false;
      set_stopped(false);
    }
    WorkerOutcome out = s.worker->finish(kill);
    const Candidate& c = candidates[s.index];
    TP_RETURN_IF_ERROR(on_record(s.index, record_from(c, out)));
    if (out.messages.empty() || out.messages[0].contains("error") || !on_also) return Status::Ok();
    // A record per also_on device timed, and one for the device its worker ended on, if it did.
    for (size_t j = 0; j < options_.also_on.size(); ++j) {
      const json* also = nullptr;
      for (const json& m : out.messages)
        if (m.value("stage", "") == "also" && m.value("device", size_t{0}) == j) also = &m;
      if (also == nullptr && has_done(out.messages)) break;  // the worker did not get that far
      TP_RETURN_IF_ERROR(on_also(s.index, j, make_record(c, options_.also_on[j], &out.messages[0], also, out)));
      if (also == nullptr) break;
    }
    return Status::Ok();
  };

  while (next < candidates.size() || !slots.empty()) {
    // Start compiles: build_jobs at once, and no more built-and-waiting ones than that.
    int active = 0, waiting = 0;
    for (Slot& s : slots) {
      if (compiling(s)) ++active;
      if (s.state == Slot::State::kBuilt) ++waiting;
    }
    while (next < candidates.size() && active < options_.build_jobs && waiting < options_.build_jobs) {
      start_worker(next++);
      ++active;
      if (timing && slots.back().shared) {
        slots.back().worker->stop();
        slots.back().stopped_at = Clock::now();
      }
    }
    // Time the first built candidate when nothing is timed.
    if (!timing) {
      Slot* first = nullptr;
      for (Slot& s : slots)
        if (s.state == Slot::State::kBuilt && (first == nullptr || s.index < first->index)) first = &s;
      if (first != nullptr) {
        set_stopped(true);
        first->state = Slot::State::kTiming;
        first->phase_start = Clock::now();
        timing = true;
        // When it has died, its pipes close and it ends below.
        send_go(*first->worker, stop_above_s ? stop_above_s(first->index) : 0.0);
      }
    }

    // Wait for the next message, end of a worker or deadline.
    std::vector<pollfd> fds;
    std::vector<size_t> owner;
    double wait_s = 1e9;
    const auto now = Clock::now();
    for (size_t k = 0; k < slots.size(); ++k) {
      Slot& s = slots[k];
      for (int fd : {s.worker->message_fd(), s.worker->output_fd()})
        if (fd >= 0) {
          fds.push_back({fd, POLLIN, 0});
          owner.push_back(k);
        }
      double elapsed = std::chrono::duration<double>(now - s.phase_start).count();
      if (compiling(s)) {
        if (s.stopped_at) continue;  // no deadline while stopped
        wait_s = std::min(wait_s, options_.build_timeout_s - (elapsed - s.stopped_s));
      } else if (s.state == Slot::State::kTiming) {
        wait_s = std::min(wait_s, run_timeout_s - elapsed);
      }
    }
    if (!fds.empty()) {
      int n = ::poll(fds.data(), fds.size(), static_cast<int>(std::clamp(wait_s * 1e3 + 1, 0.0, 1e9)));
      if (n < 0 && errno != EINTR) return Status::Internal(std::string("poll failed: ") + std::strerror(errno));
      for (size_t f = 0; n > 0 && f < fds.size(); ++f) {
        if (!(fds[f].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        Slot& s = slots[owner[f]];
        if (s.worker->read(fds[f].fd) == 0) continue;
        const json& last = s.worker->messages().back();
        if (last.value("stage", "") == "built") {
          s.state = Slot::State::kBuilt;
          s.phase_start = Clock::now();
          // It may have been stopped after it sent the message: waiting for its turn takes no CPU.
          if (s.stopped_at) {
            s.stopped_at.reset();
            s.worker->resume();
          }
        }
      }
    }
    // End the workers that are done (closed pipes, or an error at build), or past their deadline.
    for (size_t k = slots.size(); k-- > 0;) {
      Slot& s = slots[k];
      const auto& msgs = s.worker->messages();
      bool build_error = !msgs.empty() && msgs[0].contains("error");
      double elapsed = std::chrono::duration<double>(Clock::now() - s.phase_start).count();
      bool late = (compiling(s) && !s.stopped_at && elapsed - s.stopped_s > options_.build_timeout_s) ||
                  (s.state == Slot::State::kTiming && elapsed > run_timeout_s);
      const bool done = has_done(msgs);
      if (s.worker->closed() || build_error || late || done) {
        if (s.stopped_at) s.worker->resume();
        TP_RETURN_IF_ERROR(finish(k, late && !s.worker->closed() && !done && !build_error));
      }
    }
  }
  return Status::Ok();
}

}  // namespace tensorperf::measure
