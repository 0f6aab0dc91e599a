// The loop nest of a lowered program, as plain data: what the features layer reads to describe a
// (workload, config) without compiling it to machine code. No Halide type appears here; the Halide
// provider fills it from its lowered IR (halide/lower.cc).
//
// The tree: loops (For nodes that survive lowering: serial and parallel; Halide's vectorised loops
// become vector types, so a leaf's `lanes` is its vector length, and unrolled loops become copies,
// which lowering folds back into one leaf with `unrolled` > 1). Leaves are the stores, in program
// order, each keeping its place in the tree (pre-order index over loops and leaves, depth, parent).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "ir/workload.h"
#include "kernels/provider.h"

namespace tensorperf::kernels {

enum class LoopKind { kSerial, kParallel };

struct Loop {
  std::string var;     // Halide's loop variable, e.g. "conv.s1.y.yo"
  int64_t extent = 1;  // iterations; where they depend on outer loops, a constant upper bound
  double trips = 1;    // iterations per entry: `extent`, or its mean over the outer loops' iterations
  LoopKind kind = LoopKind::kSerial;
  int parent = -1;     // enclosing loop, -1 at the root
  int depth = 0;       // 0 for an outermost loop
  int preorder = 0;    // position in a pre-order walk over loops and leaves together
};

// Stride of an index along a loop that the index does not follow affinely (min/max, division, ...).
constexpr int64_t kUnknownStride = INT64_MIN;

// One buffer access of a leaf: a load, or the leaf's store.
struct Access {
  std::string buffer;
  bool is_store = false;
  int elem_bytes = 4;
  int lanes = 1;                 // elements per access (a vector access when > 1)
  int64_t lane_stride = 0;       // element stride between lanes (1: dense vector, 0: broadcast)
  std::vector<int64_t> strides;  // element stride per enclosing loop of the leaf (Leaf::loops order)
  int64_t count = 1;             // accesses with these strides per iteration (all unrolled copies)
};

// Operations of a leaf, counted per vector operation (a float add of 16 lanes is one float_add).
// Let values computed in a loop are charged to the next store inside it.
struct OpCounts {
  int64_t float_add = 0, float_mul = 0, float_fma = 0, float_div = 0;
  int64_t float_cmp = 0;   // comparisons, min, max
  int64_t float_math = 0;  // exp, log, tanh, sqrt, ... (calls)
  int64_t int_ops = 0;     // integer arithmetic (index math that survived lowering)
  int64_t select = 0;
  int64_t casts = 0;
};

struct Leaf {
  std::string buffer;       // what it stores to
  std::vector<int> loops;   // enclosing loops, outermost first
  int parent = -1;          // innermost enclosing loop (-1: none)
  int depth = 0;            // loops.size()
  int preorder = 0;
  int lanes = 1;            // vector length of the stored value
  int64_t unrolled = 1;     // copies of this store that an unrolled loop left side by side
  double fraction = 1;      // share of its loops' iterations that reach it (guards, loop partitions)
  OpCounts ops;             // per iteration of the innermost loop, all unrolled copies together
  std::vector<Access> accesses;  // loads first, the store last
  // Iterations of the leaf's innermost loop body that reach it: its loops' trips times `fraction`.
  double executions(const std::vector<Loop>& all_loops) const;
};

struct Allocation {
  std::string name;
  int64_t bytes = 0;  // constant upper bound
  int loop = -1;      // enclosing loop (-1: allocated once per call)
};

struct BufferInfo {
  std::string name;
  int64_t bytes = 0;  // whole buffer
  int elem_bytes = 4;
  bool is_input = false, is_output = false;
};

struct LoopNest {
  std::vector<Loop> loops;
  std::vector<Leaf> leaves;
  std::vector<Allocation> allocations;
  std::vector<BufferInfo> buffers;  // the pipeline's inputs and output
  const BufferInfo* find_buffer(const std::string& name) const;
  // A pseudo-code rendering, for `tensorperf features --loops` and for debugging.
  std::string to_string() const;
};

nlohmann::json loop_nest_to_json(const LoopNest& nest);

// Lowers (workload, config) for a Halide target string ("host" or e.g. "x86-64-linux-avx2-fma") as
// far as Halide's IR goes, without generating machine code, and returns its loop nest. Only the
// Halide provider's configs have one: other providers' configs are Unsupported. Configs the provider
// rejects are InvalidArgument, as compile() reports them.
Result<LoopNest> lower(const ir::Workload& w, const Config& config, const std::string& target = "host");

}  // namespace tensorperf::kernels
