// A fake kernel provider for the measurement tests: a ReLU whose knob "behavior" picks how it
// compiles and runs (correctly, slowly, crashing, hanging, wrongly, ...), so every path of the
// isolated runner can be driven for real. Its space also has two harmless knobs for the samplers.
#pragma once

#include <string>

#include "ir/workload.h"
#include "kernels/provider.h"

namespace tensorperf::measure::testing {

// behavior values: "ok", "sleep_1ms" (ok, 1 ms per run), "bad_knob" (compile: InvalidArgument),
// "compile_error" (compile: Internal), "compile_abort" (abort() in compile), "compile_hang",
// "run_error" (run returns an error), "crash" (SIGSEGV in run), "out_of_bounds" (writes far past
// the output), "hang" (run never returns), "wrong" (wrong output), "throw" (run throws),
// "compile_slow" (compile takes 100 ms and counts how many compiles run at once, in FakeShared),
// "exclusive" (each run holds an exclusive lock for 1 ms and fails if another fake run holds it),
// "pinned" (run fails unless the calling thread may use exactly as many CPUs as the kernel's thread
// count), "pinned_in_code" (the same, and its thread count is in its code: no instance_with_threads),
// "blocked" (names a native layout for its input and output, twice the plain size; a run takes 4 ms
// with plain tensors, 1 ms with native ones, as if converting cost 3 ms).
// Every other kernel gives instances of other thread counts without compiling.
class FakeProvider : public kernels::Provider {
 public:
  std::string name() const override { return "fake"; }
  bool supports(const ir::Workload& w) const override { return w.op == ir::OpKind::kRelu; }
  // behavior in {"ok", "sleep_1ms"} x tile in {1, 2, 4, 8} x unroll in {0, 1}.
  kernels::ConfigSpace space(const ir::Workload& w) const override;
  kernels::Config default_config(const ir::Workload& w) const override;
  // "bad_knob" is invalid; every other behavior passes (its failure shows only when compiled or run).
  Status validate(const ir::Workload& w, const kernels::Config& c) const override;
  std::vector<kernels::Config> seed_configs(const ir::Workload&, const std::string&) const override { return {}; }
  Status warm_up(const std::string&) const override { return Status::Ok(); }
  Result<std::vector<double>> schedule_features(const ir::Workload&, const kernels::Config&) const override {
    return std::vector<double>{};
  }
  Result<std::unique_ptr<kernels::Kernel>> compile(const ir::Workload& w, const kernels::Config& c,
                                                   const kernels::CompileOptions& options) const override;
};

// Counters shared by the test process and the workers it forks (an anonymous shared mapping).
struct FakeShared {
  int compiling = 0;          // compiles running now ("compile_slow")
  int max_compiling = 0;      // the most seen at once
  int compiles = 0;           // compile() calls that passed validation
};
// Maps the block on first use: call it (e.g. via reset_fake_shared) before any worker is forked.
FakeShared& fake_shared();
void reset_fake_shared();

// A config of the fake provider with the given behavior (tile 1, unroll 0).
kernels::Config fake_config(const std::string& behavior);

// relu over float32[1,4,16,16].
ir::Workload relu_workload(int64_t channels = 4);

}  // namespace tensorperf::measure::testing
