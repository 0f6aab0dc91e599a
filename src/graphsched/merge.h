// Operator merging (IOS's "merge" stages): convolutions that read the same input, with the same
// stride, no groups or dilation, kernels that zero-pad to one common size with one common padding,
// and the same epilogue (batch norms and constant bias adds, then at most a ReLU), run as one
// convolution whose output channels are the members' side by side; a split by channel hands each
// member's consumers their part (a view when the batch is 1). Batch norms are folded into the merged
// weights and bias first.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "ir/graph.h"
#include "kernels/host_tensor.h"
#include "runtime/stage_schedule.h"

namespace tensorperf::graphsched {

class MergePlanner {
 public:
  // Finds every convolution's fused chain (as the executor fuses it) and whether it can merge.
  static Result<MergePlanner> analyse(const ir::Graph& g);
  // Whether the named operators (executor step names, i.e. anchor node names) can merge into one.
  bool can_merge(const std::vector<std::string>& ops) const;
  // A graph of just the merged convolution (input, merged conv, split) for timing a merged stage.
  Result<ir::Graph> merged_subgraph(const std::vector<std::string>& ops, uint64_t seed) const;

  struct Conv {
    ir::NodeId anchor = -1;
    std::vector<ir::NodeId> chain;  // fused nodes after the anchor
    ir::ValueId input = -1, tail = -1;
    std::vector<int64_t> strides, pads;  // pads: top, left, bottom, right
    int64_t kh = 0, kw = 0, out_channels = 0;
    bool relu = false;
  };
  // A mergeable convolution by anchor name; null when there is none.
  const Conv* conv(const std::string& name) const {
    auto it = convs_.find(name);
    return it == convs_.end() ? nullptr : &it->second;
  }

 private:
  const ir::Graph* graph_ = nullptr;
  std::map<std::string, Conv> convs_;  // by anchor name, mergeable ones only
  // The graph's constants with data (merged_subgraph's weights), made on first use for one seed.
  mutable std::vector<std::shared_ptr<kernels::HostTensor>> constants_;
  mutable uint64_t constants_seed_ = 0;
};

// `g` with each merge applied: its members' convolutions and fused chains replaced by the merged
// convolution (named as the merge), a ReLU when they had one, and a split (named "<merge>/split").
// Constants without data (zoo weights) get the data the executor would give them with `seed`, so
// the merged graph computes what `g` does. Errors name the merge that cannot be applied.
Result<ir::Graph> apply_merges(const ir::Graph& g, const std::vector<runtime::MergeSpec>& merges, uint64_t seed);

}  // namespace tensorperf::graphsched
