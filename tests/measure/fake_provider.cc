#include "fake_provider.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <new>
#include <stdexcept>

namespace tensorperf::measure::testing {
namespace {

class FakeKernel : public kernels::Kernel {
 public:
  FakeKernel(std::string behavior, int threads, int64_t elements)
      : behavior_(std::move(behavior)), threads_(threads), elements_(elements) {}
  Status run(const std::vector<const kernels::HostTensor*>& inputs, kernels::HostTensor& output) override {
    if (behavior_ == "pinned" || behavior_ == "pinned_in_code") {
      cpu_set_t set;
      CPU_ZERO(&set);
      if (::sched_getaffinity(0, sizeof(set), &set) != 0 || CPU_COUNT(&set) != threads_)
        return Status::Internal("fake kernel of " + std::to_string(threads_) + " thread(s) runs on " +
                                std::to_string(CPU_COUNT(&set)) + " CPU(s)");
    }
    const float* x = inputs[0]->f32();
    float* y = output.f32();
    const int64_t n = output.num_elements();
    if (behavior_ == "run_error") return Status::Internal("fake kernel: run failed");
    if (behavior_ == "throw") throw std::runtime_error("fake kernel threw");
    if (behavior_ == "crash") ::raise(SIGSEGV);
    if (behavior_ == "hang")
      while (true) ::pause();
    if (behavior_ == "out_of_bounds") {
      volatile float* far = y + (int64_t{1} << 40);
      *far = 1.0f;
    }
    for (int64_t i = 0; i < n; ++i) y[i] = std::max(x[i], 0.0f);
    if (behavior_ == "wrong") y[n / 2] += 10.0f;
    if (behavior_ == "sleep_1ms") ::usleep(1000);
    if (behavior_ == "blocked") {
      // The conversions a plain run makes; a chained run writes its output's padding too.
      if (native_output_) {
        for (int64_t i = n; i < 2 * n; ++i) y[i] = 0.0f;
        ::usleep(1000);
      } else {
        ::usleep(4000);
      }
    }
    if (behavior_ == "exclusive") {
      static const int fd = ::open("/tmp/tensorperf-fake-exclusive.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0600);
      if (::flock(fd, LOCK_EX | LOCK_NB) != 0) return Status::Internal("fake kernel: another run holds the lock");
      ::usleep(1000);
      ::flock(fd, LOCK_UN);
    }
    return Status::Ok();
  }
  NativeLayout native_output_layout() const override { return blocked_layout(); }
  NativeLayout native_input_layout(size_t index) const override { return index == 0 ? blocked_layout() : NativeLayout{}; }
  Status use_native_layouts(const std::vector<bool>& native_inputs, bool native_output) override {
    if (behavior_ != "blocked") return Kernel::use_native_layouts(native_inputs, native_output);
    native_output_ = native_output;
    return Status::Ok();
  }
  std::unique_ptr<Kernel> new_instance() const override {
    return behavior_ == "blocked" ? std::make_unique<FakeKernel>(behavior_, threads_, elements_) : nullptr;
  }
  std::unique_ptr<Kernel> instance_with_threads(int threads) const override {
    if (behavior_ == "pinned_in_code") return nullptr;
    return std::make_unique<FakeKernel>(behavior_, threads, elements_);
  }

 private:
  // "blocked": a layout twice the plain size.
  NativeLayout blocked_layout() const {
    return behavior_ == "blocked" ? NativeLayout{"fake-blocked", 2 * elements_ * 4} : NativeLayout{};
  }
  std::string behavior_;
  int threads_;
  int64_t elements_;
  bool native_output_ = false;
};

}  // namespace

kernels::ConfigSpace FakeProvider::space(const ir::Workload&) const {
  return {{{"behavior", {"ok", "sleep_1ms"}}, {"tile", {1, 2, 4, 8}}, {"unroll", {0, 1}}}};
}

kernels::Config FakeProvider::default_config(const ir::Workload&) const { return fake_config("ok"); }

Status FakeProvider::validate(const ir::Workload&, const kernels::Config& c) const {
  if (c.knobs.value("behavior", "ok") == "bad_knob") return Status::InvalidArgument("fake: tile 3 does not divide 16");
  return Status::Ok();
}

Result<std::unique_ptr<kernels::Kernel>> FakeProvider::compile(const ir::Workload& w, const kernels::Config& c,
                                                               const kernels::CompileOptions& options) const {
  TP_RETURN_IF_ERROR(validate(w, c));
  __atomic_add_fetch(&fake_shared().compiles, 1, __ATOMIC_SEQ_CST);
  std::string b = c.knobs.value("behavior", "ok");
  if (b == "compile_slow") {
    FakeShared& s = fake_shared();
    int now = __atomic_add_fetch(&s.compiling, 1, __ATOMIC_SEQ_CST);
    int seen = __atomic_load_n(&s.max_compiling, __ATOMIC_SEQ_CST);
    while (now > seen && !__atomic_compare_exchange_n(&s.max_compiling, &seen, now, false, __ATOMIC_SEQ_CST,
                                                      __ATOMIC_SEQ_CST)) {
    }
    ::usleep(100'000);
    __atomic_sub_fetch(&s.compiling, 1, __ATOMIC_SEQ_CST);
  }
  if (b == "compile_error") return Status::Internal("fake: lowering failed");
  if (b == "compile_abort") std::abort();
  if (b == "compile_hang")
    while (true) ::pause();
  return std::unique_ptr<kernels::Kernel>(new FakeKernel(b, options.threads, w.output.num_elements()));
}

FakeShared& fake_shared() {
  static FakeShared* shared = [] {
    void* p = ::mmap(nullptr, sizeof(FakeShared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) std::abort();
    return new (p) FakeShared();
  }();
  return *shared;
}

void reset_fake_shared() { fake_shared() = FakeShared(); }

kernels::Config fake_config(const std::string& behavior) {
  kernels::Config c;
  c.provider = "fake";
  c.knobs = {{"behavior", behavior}, {"tile", 1}, {"unroll", 0}};
  return c;
}

ir::Workload relu_workload(int64_t channels) {
  ir::Workload w;
  w.op = ir::OpKind::kRelu;
  w.inputs = {ir::TensorType{{1, channels, 16, 16}, ir::DType::kFloat32}};
  w.output = w.inputs[0];
  return w;
}

}  // namespace tensorperf::measure::testing
