#include "synthetic_provider.h"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <new>

#include "synthetic.h"

namespace tensorperf::tune::testing {
namespace {

Result<Point> point_of(const kernels::Config& c) {
  Point p;
  for (int k = 0; k < 5; ++k) {
    auto it = c.knobs.find("k" + std::to_string(k));
    if (it == c.knobs.end() || !it->is_number_integer())
      return Status::InvalidArgument("synthetic config needs integer knob k" + std::to_string(k));
    int v = it->get<int>();
    if (v < 0 || v > 10 || v % 2) return Status::InvalidArgument("synthetic knob values are 0, 2, ..., 10");
    p.push_back(v / 2);
  }
  return p;
}

class SyntheticKernel : public kernels::Kernel {
 public:
  explicit SyntheticKernel(double spin_s) : spin_s_(spin_s) {}
  Status run(const std::vector<const kernels::HostTensor*>& inputs, kernels::HostTensor& output) override {
    const float* x = inputs[0]->f32();
    float* y = output.f32();
    for (int64_t i = 0; i < output.num_elements(); ++i) y[i] = std::max(x[i], 0.0f);
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(spin_s_);
    while (std::chrono::steady_clock::now() < until) {
    }
    return Status::Ok();
  }

 private:
  double spin_s_;
};

}  // namespace

SyntheticCounters& synthetic_counters() {
  static SyntheticCounters* shared = [] {
    void* p = ::mmap(nullptr, sizeof(SyntheticCounters), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) std::abort();
    return new (p) SyntheticCounters();
  }();
  return *shared;
}

void reset_synthetic_counters() { synthetic_counters() = SyntheticCounters(); }

kernels::ConfigSpace SyntheticProvider::space(const ir::Workload&) const { return {synthetic_space().knobs()}; }

kernels::Config SyntheticProvider::default_config(const ir::Workload&) const { return synthetic_config({0, 0, 1, 0, 0}); }

Status SyntheticProvider::validate(const ir::Workload&, const kernels::Config& c) const {
  TP_ASSIGN_OR_RETURN(Point p, point_of(c));
  return synthetic_valid(p) ? Status::Ok() : Status::InvalidArgument("k2 + 2 k3 is a multiple of 5");
}

Result<std::unique_ptr<kernels::Kernel>> SyntheticProvider::compile(const ir::Workload& w, const kernels::Config& c,
                                                                    const kernels::CompileOptions&) const {
  __atomic_add_fetch(&synthetic_counters().compiled, 1, __ATOMIC_SEQ_CST);
  Status valid = validate(w, c);
  if (!valid.ok()) {
    __atomic_add_fetch(&synthetic_counters().compiled_invalid, 1, __ATOMIC_SEQ_CST);
    return valid;
  }
  TP_ASSIGN_OR_RETURN(Point p, point_of(c));
  return std::unique_ptr<kernels::Kernel>(new SyntheticKernel(40e-6 * synthetic_cost(p)));
}

kernels::Config synthetic_config(const Point& p) { return synthetic_space().config(p); }

}  // namespace tensorperf::tune::testing
