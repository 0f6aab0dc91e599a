// A kernel provider over the synthetic space (synthetic.h) whose kernels really run: a ReLU that
// then spins for synthetic_cost(point) x 40 us, so the tuning loop can be tested end to end (workers,
// timing, records, resume) with a known best config. It counts, in memory shared with the workers,
// how many configs it compiled and how many of them were invalid (which the loop must never do).
#pragma once

#include "ir/workload.h"
#include "kernels/provider.h"
#include "tune/search_space.h"

namespace tensorperf::tune::testing {

struct SyntheticCounters {
  int compiled = 0;
  int compiled_invalid = 0;
};
// Mapped on first use: call reset_synthetic_counters() before any worker is forked.
SyntheticCounters& synthetic_counters();
void reset_synthetic_counters();

class SyntheticProvider : public kernels::Provider {
 public:
  std::string name() const override { return "synthetic"; }
  bool supports(const ir::Workload& w) const override { return w.op == ir::OpKind::kRelu; }
  kernels::ConfigSpace space(const ir::Workload& w) const override;
  kernels::Config default_config(const ir::Workload& w) const override;
  Status validate(const ir::Workload& w, const kernels::Config& c) const override;
  std::vector<kernels::Config> seed_configs(const ir::Workload&, const std::string&) const override { return {}; }
  Result<std::unique_ptr<kernels::Kernel>> compile(const ir::Workload& w, const kernels::Config& c,
                                                   const kernels::CompileOptions& options) const override;
  Status warm_up(const std::string&) const override { return Status::Ok(); }
  Result<std::vector<double>> schedule_features(const ir::Workload&, const kernels::Config&) const override {
    return std::vector<double>{};
  }
};

// The config of a point of the synthetic space.
kernels::Config synthetic_config(const Point& p);

}  // namespace tensorperf::tune::testing
