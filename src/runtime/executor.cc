#include "runtime/executor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "base/steady_time.h"
#include "ir/task_extraction.h"
#include "kernels/native_io.h"
#include "kernels/onednn/layout_passing_kernel.h"
#include "kernels/provider.h"
#include "measure/timing.h"
#include "runtime/constants.h"
#include "runtime/group_pool.h"
#include "runtime/layout_kernels.h"
#include "runtime/memory_plan.h"

namespace tensorperf::runtime {

using kernels::HostTensor;
using ir::NodeId;
using ir::OpKind;
using ir::ValueId;

namespace {

// time_stage throws its first timing away when the pause before its warm-up run (since it last
// timed a stage) was longer than this. After one of seconds, the first timing of a stage could run
// many times slow on a 2-core VM even after the warm-up run (2026-11-26). After shorter pauses the
// warm-up is enough: in a RandWire batch-16 search (1,593 stages, 2026-12-06) the first timing
// after a pause under 5 ms ran at 1.01x the median of the next three (90th percentile 1.08x), the
// same as after none. The pause used to be counted to the end of the warm-up run, which made 82% of
// that search's stages take a timing more.
constexpr double kStagePauseS = 0.005;


std::string node_label(const ir::Node& n) { return "node '" + n.name + "' (" + std::string(ir::op_name(n.op)) + ")"; }

// A step input: a graph value, or a tensor the plan owns (folded weights, summed biases).
struct TensorRef {
  ValueId value = -1;
  int owned = -1;
};

struct Step {
  enum class Kind { kKernel, kReference, kLayout } kind = Kind::kKernel;
  std::unique_ptr<kernels::Kernel> kernel;
  ir::Workload workload;  // kKernel, kReference
  OpKind op = OpKind::kConcat;
  ir::Attrs attrs;  // kLayout
  std::vector<TensorRef> in;
  std::vector<ValueId> out;
  std::vector<const HostTensor*> inputs;  // bound views
  std::vector<HostTensor*> outputs;
  StepInfo info;
  // kKernel whose weight (input 1) is computed or fed at run time rather than a constant: kernels
  // keep a packed copy while the same tensor object is passed (kernels/provider.h), so each run
  // passes the other of two views of the same memory, and the kernel packs the new values.
  std::unique_ptr<HostTensor> weight_views[2];
  int weight_view = 0;
  std::vector<bool> native_in;  // kKernel: inputs that arrive in the kernel's native layout
  bool native_out = false;      // kKernel: the output stays in the kernel's native layout
  bool channels_last = false;   // kLayout concat: its inputs and output are held channels last
  int threads = 1;              // kKernel: the thread count `kernel` was compiled for; also a channels-last concat's
  kernels::Config config;       // kKernel: what `kernel` runs
  std::map<int, std::unique_ptr<kernels::Kernel>> at_threads;  // time_stage's kernels of other counts
};

// Where a value's bytes live: an arena buffer or a constant's memory, at a byte offset.
struct Storage {
  bool external = false;
  std::byte* ptr = nullptr;  // external
  int64_t bytes = 0;
  int first = -1, last = -1;
};

struct Free {
  void operator()(std::byte* p) const { std::free(p); }
};

// StepInfo::layouts of a kernel step whose native_in and native_out are set.
nlohmann::json step_layouts(const Step& s) {
  const kernels::Kernel& k = *s.kernel;
  bool own = s.native_out || !k.native_output_layout().key.empty();
  for (size_t i = 0; i < s.in.size(); ++i) own = own || s.native_in[i] || !k.native_input_layout(i).key.empty();
  if (!own) return nullptr;
  nlohmann::json in = nlohmann::json::array();
  for (size_t i = 0; i < s.in.size(); ++i) {
    const std::string key = k.native_input_layout(i).key;
    in.push_back(key.empty() ? "plain" : s.native_in[i] ? key : "plain->" + key);
  }
  const std::string out = k.native_output_layout().key;
  return {{"in", in}, {"out", out.empty() ? "plain" : s.native_out ? out : out + "->plain"}};
}

// Runs one step; `kernel` overrides the step's own (time_stage's kernels of other thread counts).
Status run_step(Step& s, kernels::Kernel* kernel = nullptr) {
  if (s.weight_views[0]) {
    s.weight_view ^= 1;
    s.inputs[1] = s.weight_views[s.weight_view].get();
  }
  switch (s.kind) {
    case Step::Kind::kKernel: return (kernel ? kernel : s.kernel.get())->run(s.inputs, *s.outputs[0]);
    case Step::Kind::kReference: return kernels::run_reference(s.workload, s.inputs, *s.outputs[0]);
    case Step::Kind::kLayout:
      return s.channels_last ? run_channels_last_concat(s.inputs, *s.outputs[0], s.threads)
                             : run_layout_op(s.op, s.attrs, s.inputs, s.outputs);
  }
  return Status::Internal("unknown step kind");
}

Status run_range(std::vector<Step>& steps, int begin, int end) {
  for (int i = begin; i < end; ++i) {
    Status st = run_step(steps[i]);
    if (!st.ok()) return st.WithContext("step '" + steps[i].info.name + "' (" + steps[i].info.op + ")");
  }
  return Status::Ok();
}

// Seconds as milliseconds with three decimals.
std::string ms_text(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", seconds * 1e3);
  return buf;
}

}  // namespace

struct Executor::Impl {
  ExecutorOptions options;
  ir::Graph graph;
  std::vector<std::shared_ptr<HostTensor>> constants;  // by value id
  std::vector<std::unique_ptr<HostTensor>> owned;      // folded weights and biases
  std::vector<Step> steps;
  std::vector<StepInfo> infos;
  std::vector<std::unique_ptr<HostTensor>> views;  // by value id
  std::unique_ptr<std::byte, Free> arena;
  MemoryPlan plan;
  int compiles = 0;
  int kernel_steps = 0;
  int native_values = 0;
  int in_place = 0;  // accumulate_in_place
  // Compiled kernels by "<workload key>\n<provider>\n<config>\n<threads>".
  std::map<std::string, std::unique_ptr<kernels::Kernel>> compiled;
  std::map<std::string, ChosenConfig> chosen;  // by workload key
  std::vector<std::vector<int>> preds;          // by step
  std::map<std::string, int> scheduled_threads;  // by step name, from options.schedule
  // Scheduled runs: each stage's groups as ranges of steps, and the closures that run them.
  std::vector<std::vector<std::pair<int, int>>> stage_ranges;
  std::vector<std::vector<int>> stage_threads;  // per stage, each group's thread count
  std::vector<std::vector<std::function<Status()>>> stage_tasks;
  std::unique_ptr<GroupPool> pool;
  double last_timed_s = -1e9;  // when time_stage last finished timing (steady_seconds)

  // Runs stage k of a scheduled run: its groups at once, up to the barrier.
  Status run_stage(size_t k) { return pool ? pool->run(stage_tasks[k], stage_threads[k]) : stage_tasks[k][0](); }

  void say(const std::string& line) const {
    if (options.progress) options.progress(line);
  }

  Status build_steps();
  Result<std::vector<TensorRef>> kernel_inputs(const ir::FusedOp& f, const ir::Workload& w);
  Status choose_and_compile();
  Result<std::unique_ptr<kernels::Kernel>> compile(const ir::Workload& w, const kernels::Config& c, int threads);
  Result<std::unique_ptr<kernels::Kernel>> step_kernel(const ir::Workload& w, const kernels::Config& c, int threads);
  Result<kernels::Kernel*> kernel_at(Step& s, int threads);
  using ViewOf = std::vector<std::optional<std::pair<ValueId, int64_t>>>;
  Status compute_predecessors(const std::vector<int>& root, const std::vector<int64_t>& offset,
                              const std::vector<int64_t>& root_bytes, const ViewOf& view_of);
  Status order_by_schedule();
  Result<double> quick_time(const kernels::Kernel& prototype, const ir::Workload& w, bool chained = true);
  Result<double> chain_break_cost(const kernels::Kernel& onednn_default, const ir::Workload& w, double chained_s);
  Status plan_memory_and_bind();
  Result<std::vector<int64_t>> choose_native_layouts(const ViewOf& view_of);
  Status adopt_layouts_and_mark_concats();
  int64_t accumulate_in_place(const std::vector<int>& time, std::vector<int>& root, std::vector<int64_t>& offset,
                              const std::vector<Storage>& storages);
};

// A kernel that accumulates onto one of its inputs (Kernel::accumulated_input: a residual add done
// as oneDNN's sum post-op) writes its output into that input's memory when nothing reads the input
// later or at the same time (a stage's other groups), the two have the same layout and size, and
// neither shares its memory with another value (views, concats). The kernel then skips copying the
// residual into its output: ResNet-50's residual convolutions copied 0.8-3.2 MB each. Returns the
// bytes of the storages no value uses any more (they still count in the naive sum).
int64_t Executor::Impl::accumulate_in_place(const std::vector<int>& time, std::vector<int>& root,
                                            std::vector<int64_t>& offset, const std::vector<Storage>& storages) {
  const ir::Graph& g = graph;
  // Storages that hold one value (or, once it took over, the value that accumulated onto a dead one).
  std::vector<int> sharing(storages.size(), 0);
  for (int r : root)
    if (r >= 0) ++sharing[r];
  std::vector<bool> exclusive(storages.size());
  for (size_t k = 0; k < storages.size(); ++k) exclusive[k] = sharing[k] == 1 && !storages[k].external;
  std::vector<bool> output(g.values().size(), false);
  for (ValueId v : g.outputs()) output[v] = true;
  int64_t unused = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    if (s.kind != Step::Kind::kKernel || s.out.size() != 1) continue;
    const std::optional<size_t> acc = s.kernel->accumulated_input();
    if (!acc || *acc >= s.in.size()) continue;
    const ValueId r = s.in[*acc].value, out = s.out[0];
    if (r < 0 || g.value(r).kind != ir::ValueKind::kNodeOutput || output[r] || root[r] < 0 || root[out] < 0 ||
        !exclusive[root[r]] || !exclusive[root[out]] || storages[root[r]].bytes != storages[root[out]].bytes ||
        s.native_in[*acc] != s.native_out)
      continue;
    bool last_reader = std::count_if(s.in.begin(), s.in.end(), [&](const TensorRef& t) { return t.value == r; }) == 1;
    for (size_t j = 0; j < steps.size() && last_reader; ++j)
      if (j != i)
        for (const TensorRef& t : steps[j].in)
          if (t.value == r && time[j] >= time[i]) last_reader = false;
    if (!last_reader) continue;
    ++in_place;
    exclusive[root[out]] = false;  // unused from now on
    unused += storages[root[out]].bytes;
    root[out] = root[r];
    offset[out] = offset[r];
  }
  return unused;
}

// Before views are chosen, two ways for a chain of kernels in a native layout to go on:
// 1. Adoption. A kernel that can run in several layouts (oneDNN's pooling, an element-wise kernel
//    wrapped by pass_layouts_through) takes the one its producer writes when every reader of that
//    value can take it too (in step order, so that a pool after a pool follows the first one's
//    choice).
// 2. Channels-last concats. A channel concat whose inputs are each written channels last by a
//    kernel, and read in that layout by every other reader, and whose output every reader takes
//    channels last, copies each pixel's channels in that layout: one pass over the data where a
//    concat in place costs each producer a conversion to plain NCHW and each reader one back.
// The two depend on each other: a concat's input may be written by a kernel that adopts its layout
// only when the concat reads channels last (NASNet-A's branch sums), and a concat's output readers
// adopt channels last only from a channels-last concat. So every concat that could copy channels
// last is assumed to, adoption runs, and the concats it did not bear out are dropped and adoption
// runs again on fresh kernels, until no concat is dropped (at most once per concat).
Status Executor::Impl::adopt_layouts_and_mark_concats() {
  const ir::Graph& g = graph;
  const size_t num_values = g.values().size();
  std::vector<int> producer(num_values, -1);
  std::vector<std::vector<std::pair<int, size_t>>> readers(num_values);
  for (size_t i = 0; i < steps.size(); ++i) {
    for (ValueId v : steps[i].out) producer[v] = static_cast<int>(i);
    for (size_t k = 0; k < steps[i].in.size(); ++k)
      if (steps[i].in[k].value >= 0) readers[steps[i].in[k].value].push_back({static_cast<int>(i), k});
  }
  std::vector<bool> output(num_values, false);
  for (ValueId v : g.outputs()) output[v] = true;
  using kernels::Kernel;
  using Fits = std::function<bool(const Kernel::NativeLayout&)>;
  auto kernel_step = [&](int i) { return i >= 0 && steps[i].kind == Step::Kind::kKernel; };
  auto alternative = [&](int i, size_t k, const Fits& fits) {
    for (const Kernel::NativeLayout& l : steps[i].kernel->alternative_input_layouts(k))
      if (fits(l)) return l.key;
    return std::string();
  };
  auto is_channels_last = [](const Kernel::NativeLayout& l) { return l.channels_last; };
  // The concats assumed to copy channels last.
  std::vector<bool> planned(steps.size(), false);
  // Every reader of v takes a layout that `fits`, as it is or by adoption; a planned concat reads it
  // when that layout is channels last (`channels_last`).
  auto readers_take = [&](ValueId v, const Fits& fits, bool channels_last) {
    if (output[v] || readers[v].empty()) return false;
    for (auto [i, k] : readers[v]) {
      if (planned[i] && channels_last) continue;
      if (!kernel_step(i) || (!fits(steps[i].kernel->native_input_layout(k)) && alternative(i, k, fits).empty()))
        return false;
    }
    return true;
  };
  // A concat along the channels of rank-4 tensors, of distinct values that kernels write.
  auto concat_shape = [&](int c) {
    const Step& s = steps[c];
    if (s.kind != Step::Kind::kLayout || s.op != OpKind::kConcat || s.out.size() != 1) return false;
    const ir::TensorType& t = g.type(s.out[0]);
    const int64_t axis = s.attrs.get_int("axis", 1);
    if (t.rank() != 4 || (axis != 1 && axis != -3)) return false;
    std::set<ValueId> seen;
    for (const TensorRef& r : s.in)
      if (r.value < 0 || output[r.value] || !seen.insert(r.value).second || !kernel_step(producer[r.value]))
        return false;
    return true;
  };
  // Kernels that may adopt a layout (before any adoption), so that a second round starts them afresh.
  std::vector<bool> adopts(steps.size(), false);
  for (size_t i = 0; i < steps.size(); ++i)
    for (size_t k = 0; k < steps[i].in.size() && kernel_step(static_cast<int>(i)) && !adopts[i]; ++k)
      adopts[i] = !steps[i].kernel->alternative_input_layouts(k).empty();
  // Before adoption, what the concat needs of its neighbours: each input's producer writes channels
  // last or may adopt a layout, each input's other readers and the output's readers can take
  // channels last (kernels, or planned concats).
  auto could_hold = [&](int c) {
    for (const TensorRef& r : steps[c].in) {
      const int p = producer[r.value];
      if ((!steps[p].kernel->native_output_layout().channels_last && !adopts[p]) ||
          !readers_take(r.value, is_channels_last, true))
        return false;
    }
    return readers_take(steps[c].out[0], is_channels_last, false);
  };
  // After adoption: each input written channels last and read in that same layout by every other
  // reader, the output's readers taking it channels last.
  auto holds = [&](int c) {
    for (const TensorRef& r : steps[c].in) {
      const Kernel::NativeLayout written = steps[producer[r.value]].kernel->native_output_layout();
      if (!written.channels_last) return false;
      for (auto [i, k] : readers[r.value])
        if (!(planned[i] || (kernel_step(i) && steps[i].kernel->native_input_layout(k).key == written.key)))
          return false;
    }
    for (auto [i, k] : readers[steps[c].out[0]])
      if (!kernel_step(i) || !steps[i].kernel->native_input_layout(k).channels_last) return false;
    return true;
  };
  auto adopt = [&]() -> Status {
    for (size_t i = 0; i < steps.size(); ++i) {
      Step& s = steps[i];
      if (s.kind != Step::Kind::kKernel) continue;
      for (size_t k = 0; k < s.in.size(); ++k) {
        const ValueId v = s.in[k].value;
        if (v < 0 || steps[i].kernel->alternative_input_layouts(k).empty()) continue;
        Fits fits;
        bool channels_last = false;
        if (kernel_step(producer[v])) {
          const Kernel::NativeLayout written = steps[producer[v]].kernel->native_output_layout();
          if (written.key.empty()) continue;
          fits = [key = written.key](const Kernel::NativeLayout& l) { return l.key == key; };
          channels_last = written.channels_last;
        } else if (producer[v] >= 0 && planned[producer[v]]) {
          fits = is_channels_last;
          channels_last = true;
        } else {
          continue;
        }
        if (fits(s.kernel->native_input_layout(k)) || !readers_take(v, fits, channels_last)) continue;
        for (auto [r, rk] : readers[v])
          if (kernel_step(r) && !fits(steps[r].kernel->native_input_layout(rk)))
            TP_RETURN_IF_ERROR(steps[r]
                                   .kernel->adopt_input_layout(rk, alternative(r, rk, fits))
                                   .WithContext("step '" + steps[r].info.name + "'"));
      }
    }
    return Status::Ok();
  };
  // Unplans the concats that fail `check`; whether any did.
  auto drop_failing = [&](const std::function<bool(int)>& check) {
    bool dropped = false;
    for (size_t i = 0; i < steps.size(); ++i)
      if (planned[i] && !check(static_cast<int>(i))) {
        planned[i] = false;
        dropped = true;
      }
    return dropped;
  };
  for (size_t i = 0; i < steps.size(); ++i) planned[i] = concat_shape(static_cast<int>(i));
  while (drop_failing(could_hold)) {
  }
  for (bool first = true;; first = false) {
    if (!first)
      for (size_t i = 0; i < steps.size(); ++i)
        if (adopts[i]) {
          Step& s = steps[i];
          TP_ASSIGN_OR_RETURN(s.kernel, step_kernel(s.workload, s.config, s.threads));
        }
    TP_RETURN_IF_ERROR(adopt());
    if (!drop_failing(holds)) break;
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    steps[i].channels_last = planned[i];
    // Unscheduled, it has every thread to itself; in a stage schedule, its group's threads (one
    // where the schedule does not name it). SqueezeNet's IOS-both schedule, which is the sequential
    // one, ran 3-4% slower than the unscheduled run when its eight concats all copied on one thread.
    if (steps[i].channels_last) {
      auto scheduled = scheduled_threads.find(steps[i].info.name);
      steps[i].threads = options.schedule == nullptr            ? options.threads
                         : scheduled == scheduled_threads.end() ? 1
                                                                : scheduled->second;
    }
  }
  return Status::Ok();
}

// Layouts propagate: a value a kernel would write in a layout of its own (oneDNN's blocked nChw16c)
// stays in it when every step that reads it is a kernel taking that same layout for that input, and
// it is neither a graph output nor the base or a view of another value. Both conversions (the
// producer's and each reader's) are then skipped. Returns each value's bytes in its native layout
// (0: plain).
Result<std::vector<int64_t>> Executor::Impl::choose_native_layouts(const ViewOf& view_of) {
  const ir::Graph& g = graph;
  std::vector<int64_t> native_bytes(view_of.size(), 0);
  std::vector<bool> pinned(view_of.size(), false);  // graph outputs, views and the values they view
  for (size_t v = 0; v < view_of.size(); ++v)
    if (view_of[v]) pinned[v] = pinned[view_of[v]->first] = true;
  for (ValueId v : g.outputs()) pinned[v] = true;
  for (Step& s : steps) s.native_in.assign(s.in.size(), false);
  for (Step& producer : steps) {
    if (producer.kind != Step::Kind::kKernel) continue;
    const ValueId v = producer.out[0];
    const kernels::Kernel::NativeLayout layout = producer.kernel->native_output_layout();
    if (layout.key.empty() || pinned[v]) continue;
    std::vector<std::pair<Step*, size_t>> readers;  // kernels (a channels-last concat reads as it is)
    int read = 0;
    bool agree = true;
    for (Step& s : steps)
      for (size_t k = 0; k < s.in.size() && agree; ++k) {
        if (s.in[k].value != v) continue;
        agree = (s.kind == Step::Kind::kKernel && s.kernel->native_input_layout(k).key == layout.key) ||
                (s.channels_last && layout.channels_last);
        ++read;
        if (s.kind == Step::Kind::kKernel) readers.push_back({&s, k});
      }
    if (!agree || read == 0) continue;
    producer.native_out = true;
    for (auto& [s, k] : readers) s->native_in[k] = true;
    native_bytes[v] = layout.bytes;
    ++native_values;
  }
  // A channels-last concat's readers take its output channels last (adopt_layouts_and_mark_concats
  // checked that each can).
  for (const Step& c : steps) {
    if (!c.channels_last) continue;
    for (Step& s : steps)
      for (size_t k = 0; k < s.in.size(); ++k) {
        if (s.in[k].value != c.out[0]) continue;
        if (s.kind != Step::Kind::kKernel || !s.kernel->native_input_layout(k).channels_last)
          return Status::Internal("a channels-last concat's reader '" + s.info.name + "' does not take that layout");
        s.native_in[k] = true;
      }
    ++native_values;
  }
  for (Step& s : steps)
    if (s.kind == Step::Kind::kKernel) {
      TP_RETURN_IF_ERROR(s.kernel->use_native_layouts(s.native_in, s.native_out).WithContext("step '" + s.info.name + "'"));
      s.info.layouts = step_layouts(s);
    }
  return native_bytes;
}

Result<std::vector<TensorRef>> Executor::Impl::kernel_inputs(const ir::FusedOp& f, const ir::Workload& w) {
  const ir::Graph& g = graph;
  const ir::Node& a = g.node(f.anchor);
  const bool is_anchor = ir::op_category(a.op) == ir::OpCategory::kAnchor;
  std::vector<TensorRef> refs;
  const size_t main = is_anchor ? 2 : a.inputs.size();
  for (size_t i = 0; i < main; ++i) refs.push_back({a.inputs[i], -1});
  const bool has_bias = std::find(w.epilogue.begin(), w.epilogue.end(), "bias") != w.epilogue.end();
  std::vector<TensorRef> residuals;
  std::vector<float> bias, scale;
  int64_t channels = 0;
  std::optional<TensorRef> plain_bias;  // an anchor bias passed as is (nothing to fold or sum)
  bool folded = false;
  if (has_bias) {
    channels = kernels::kernel_input_types(w)[main].shape[0];
    bias.assign(channels, 0.0f);
    scale.assign(channels, 1.0f);
  }
  auto constant_floats = [&](ValueId v, const ir::Node& n) -> Result<const float*> {
    if (!g.is_constant(v) || !constants[v])
      return Status::Unsupported(node_label(n) + ": input '" + g.value(v).name + "' must be a constant to be folded");
    if (constants[v]->num_elements() != channels)
      return Status::InvalidArgument(node_label(n) + ": '" + g.value(v).name + "' has " +
                                     std::to_string(constants[v]->num_elements()) + " values for " +
                                     std::to_string(channels) + " channels");
    return constants[v]->f32();
  };
  if (is_anchor && a.inputs.size() == 3) {
    if (g.is_constant(a.inputs[2])) {
      TP_ASSIGN_OR_RETURN(const float* b, constant_floats(a.inputs[2], a));
      std::copy(b, b + channels, bias.begin());
    } else {
      plain_bias = TensorRef{a.inputs[2], -1};
    }
  }
  ValueId cur = a.outputs[0];
  for (NodeId id : f.fused) {
    const ir::Node& n = g.node(id);
    if (n.op == OpKind::kBatchNorm) {
      TP_ASSIGN_OR_RETURN(const float* gamma, constant_floats(n.inputs[1], n));
      TP_ASSIGN_OR_RETURN(const float* beta, constant_floats(n.inputs[2], n));
      TP_ASSIGN_OR_RETURN(const float* mean, constant_floats(n.inputs[3], n));
      TP_ASSIGN_OR_RETURN(const float* var, constant_floats(n.inputs[4], n));
      const double eps = n.attrs.get_float("epsilon", 1e-5);
      for (int64_t c = 0; c < channels; ++c) {
        const float s = static_cast<float>(gamma[c] / std::sqrt(static_cast<double>(var[c]) + eps));
        scale[c] *= s;
        bias[c] = (bias[c] - mean[c]) * s + beta[c];
      }
      folded = true;
    } else if (n.op == OpKind::kAdd || n.op == OpKind::kMul) {
      const ValueId other = n.inputs[0] == cur ? n.inputs[1] : n.inputs[0];
      if (n.op == OpKind::kAdd && g.is_constant(other)) {
        TP_ASSIGN_OR_RETURN(const float* b, constant_floats(other, n));
        for (int64_t c = 0; c < channels; ++c) bias[c] += b[c];
        folded = true;
      } else {
        residuals.push_back({other, -1});
      }
    }
    cur = n.outputs[0];
  }
  if (has_bias) {
    if (plain_bias && !folded) {
      refs.push_back(*plain_bias);
    } else {
      if (plain_bias) return Status::Unsupported(node_label(a) + ": a bias that is not a constant cannot be folded");
      auto t = std::make_unique<HostTensor>(ir::TensorType{{channels}, ir::DType::kFloat32});
      std::copy(bias.begin(), bias.end(), t->f32());
      refs.push_back({-1, static_cast<int>(owned.size())});
      owned.push_back(std::move(t));
    }
    const bool scaled = std::any_of(scale.begin(), scale.end(), [](float s) { return s != 1.0f; });
    if (scaled) {
      const ValueId wv = a.inputs[1];
      if (!g.is_constant(wv) || !constants[wv])
        return Status::Unsupported(node_label(a) + ": a batch norm folds only into a constant weight");
      const HostTensor& src = *constants[wv];
      auto t = std::make_unique<HostTensor>(src.type());
      const int64_t per = src.num_elements() / channels;
      for (int64_t c = 0; c < channels; ++c)
        for (int64_t i = 0; i < per; ++i) t->f32()[c * per + i] = src.f32()[c * per + i] * scale[c];
      refs[1] = {-1, static_cast<int>(owned.size())};
      owned.push_back(std::move(t));
    }
  }
  for (const TensorRef& r : residuals) refs.push_back(r);
  return refs;
}

Status Executor::Impl::build_steps() {
  const ir::Graph& g = graph;
  TP_ASSIGN_OR_RETURN(std::vector<NodeId> order, g.topo_order());
  std::vector<std::pair<ir::FusedOp, ir::Workload>> ops;
  if (options.policy == ConfigPolicy::kReference) {
    for (NodeId id : order) {
      const ir::Node& n = g.node(id);
      if (ir::op_category(n.op) == ir::OpCategory::kLayout) continue;
      ir::Workload w;
      w.op = n.op;
      w.attrs = n.attrs;
      const bool anchor = ir::op_category(n.op) == ir::OpCategory::kAnchor;
      const size_t main = anchor ? 2 : n.inputs.size();
      for (size_t i = 0; i < main && i < n.inputs.size(); ++i) w.inputs.push_back(g.type(n.inputs[i]));
      if (anchor && n.inputs.size() == 3) w.epilogue.push_back("bias");
      w.output = g.type(n.outputs[0]);
      ops.push_back({ir::FusedOp{id, {}}, std::move(w)});
    }
  } else {
    TP_ASSIGN_OR_RETURN(ops, ir::fuse_graph(g));
  }
  std::map<NodeId, size_t> op_at_tail;
  for (size_t i = 0; i < ops.size(); ++i)
    op_at_tail[ops[i].first.fused.empty() ? ops[i].first.anchor : ops[i].first.fused.back()] = i;

  for (NodeId id : order) {
    const ir::Node& n = g.node(id);
    auto it = op_at_tail.find(id);
    if (it != op_at_tail.end()) {
      const auto& [f, w] = ops[it->second];
      const ir::Node& a = g.node(f.anchor);
      for (const ir::TensorType& t : kernels::kernel_input_types(w))
        if (t.dtype != ir::DType::kFloat32)
          return Status::Unsupported(node_label(a) + ": only float32 kernels run; an input is " + t.to_string());
      Step s;
      s.kind = options.policy == ConfigPolicy::kReference ? Step::Kind::kReference : Step::Kind::kKernel;
      s.workload = w;
      if (s.kind == Step::Kind::kReference) {
        for (ValueId v : a.inputs) s.in.push_back({v, -1});
      } else {
        TP_ASSIGN_OR_RETURN(s.in, kernel_inputs(f, w));
      }
      s.out = {n.outputs[0]};
      s.info.name = a.name;
      s.info.op = std::string(ir::op_name(w.op));
      s.info.workload = w.key();
      steps.push_back(std::move(s));
      continue;
    }
    if (ir::op_category(n.op) != ir::OpCategory::kLayout) continue;  // fused into another step
    Step s;
    s.kind = Step::Kind::kLayout;
    s.op = n.op;
    s.attrs = n.attrs;
    for (ValueId v : n.inputs) s.in.push_back({v, -1});
    s.out = n.outputs;
    s.info.name = n.name;
    s.info.op = std::string(ir::op_name(n.op));
    s.info.provider = "layout";
    steps.push_back(std::move(s));
  }
  return Status::Ok();
}

Result<std::unique_ptr<kernels::Kernel>> Executor::Impl::compile(const ir::Workload& w, const kernels::Config& c,
                                                                 int threads) {
  const std::string key = w.key() + "\n" + c.provider + "\n" + c.knobs.dump() + "\n" + std::to_string(threads);
  auto it = compiled.find(key);
  if (it == compiled.end()) {
    TP_ASSIGN_OR_RETURN(const kernels::Provider* p, kernels::find_provider(c.provider));
    kernels::CompileOptions co;
    co.target = options.target;
    co.threads = threads;
    TP_ASSIGN_OR_RETURN(std::unique_ptr<kernels::Kernel> k, p->compile(w, c, co));
    ++compiles;
    it = compiled.emplace(key, std::move(k)).first;
  }
  std::unique_ptr<kernels::Kernel> instance = it->second->new_instance();
  if (instance) return instance;
  // A kernel that cannot share its code: compile one per node.
  TP_ASSIGN_OR_RETURN(const kernels::Provider* p, kernels::find_provider(c.provider));
  ++compiles;
  return p->compile(w, c, kernels::CompileOptions{options.target, threads});
}

// A step's kernel: compile()'s, and an element-wise plain kernel wrapped so that it can take the
// layout of the oneDNN kernels around it (adopt_layouts_and_mark_concats) and their chain goes on
// through it.
Result<std::unique_ptr<kernels::Kernel>> Executor::Impl::step_kernel(const ir::Workload& w, const kernels::Config& c,
                                                                     int threads) {
  TP_ASSIGN_OR_RETURN(std::unique_ptr<kernels::Kernel> k, compile(w, c, threads));
  return kernels::onednn::pass_layouts_through(std::move(k), w, threads);
}

Result<kernels::Kernel*> Executor::Impl::kernel_at(Step& s, int threads) {
  if (s.kind != Step::Kind::kKernel || threads == s.threads) return s.kernel.get();
  auto it = s.at_threads.find(threads);
  if (it == s.at_threads.end()) {
    TP_ASSIGN_OR_RETURN(std::unique_ptr<kernels::Kernel> k, step_kernel(s.workload, s.config, threads));
    // The same layouts as the step's own kernel, adopted ones included (a pool in its producer's).
    for (size_t i = 0; i < s.in.size(); ++i) {
      const std::string key = s.kernel->native_input_layout(i).key;
      if (key != k->native_input_layout(i).key) TP_RETURN_IF_ERROR(k->adopt_input_layout(i, key));
    }
    TP_RETURN_IF_ERROR(k->use_native_layouts(s.native_in, s.native_out));
    it = s.at_threads.emplace(threads, std::move(k)).first;
  }
  return it->second.get();
}

// Median seconds of a few runs of `prototype`'s code. As a kernel runs inside a chain of kernels
// that share its native layout (choose_native_layouts), its activation input and output are
// given in that layout when it has one (`chained`): the conversions it would do alone are not what
// it costs in a graph. `chained` false: plain tensors, conversions included.
Result<double> Executor::Impl::quick_time(const kernels::Kernel& prototype, const ir::Workload& w, bool chained) {
  std::unique_ptr<kernels::Kernel> instance = prototype.new_instance();
  if (!instance) return Status::Internal("quick_time needs a kernel that shares its code");
  TP_ASSIGN_OR_RETURN(kernels::NativeIo io, kernels::NativeIo::prepare(*instance, w, /*seed=*/1, chained));
  // The measurement protocol's loop, short: one warm-up (packs weights), five timings of >= 2 ms.
  // It follows a compile (seconds of one core computing, the others idle): the first timing is
  // thrown away (TimingOptions::discarded_timings).
  measure::TimingOptions t;
  t.repeat = 5;
  t.min_repeat_ms = 2;
  t.discarded_timings = 1;
  TP_ASSIGN_OR_RETURN(measure::Timing timing,
                      measure::time_runs([&] { return instance->run(io.inputs(), io.output()); }, t));
  std::sort(timing.costs.begin(), timing.costs.end());
  return timing.costs[timing.costs.size() / 2];
}

// What a plain-layout kernel costs beyond its own time where oneDNN's default would have run in a
// chain: the executor converts the chain's activation out of oneDNN's layout before it and back
// after it. Estimated as what oneDNN's default spends on the same two conversions when it runs
// with plain tensors (its plain time minus its chained time `chained_s`); 0 when it has no layout of
// its own. Without this charge ResNet-18 ran 8-10% slower with tuned Halide configs that beat
// oneDNN's default alone than with oneDNN's defaults everywhere.
Result<double> Executor::Impl::chain_break_cost(const kernels::Kernel& onednn_default, const ir::Workload& w,
                                                double chained_s) {
  if (!kernels::has_native_layout(onednn_default)) return 0.0;
  TP_ASSIGN_OR_RETURN(double plain_s, quick_time(onednn_default, w, /*chained=*/false));
  return std::max(0.0, plain_s - chained_s);
}

Status Executor::Impl::choose_and_compile() {
  const bool reference = options.policy == ConfigPolicy::kReference;
  Result<const kernels::Provider*> halide = kernels::find_provider("halide");
  Result<const kernels::Provider*> onednn = kernels::find_provider("onednn");
  if (!reference) {
    std::set<std::string> warmed;
    for (const kernels::Provider* p : kernels::providers())
      if (warmed.insert(p->name()).second) TP_RETURN_IF_ERROR(p->warm_up(options.target));
  }
  size_t distinct = 0;
  std::set<std::string> keys;
  for (const Step& s : steps)
    if (s.kind == Step::Kind::kKernel) keys.insert(s.info.workload);
  const size_t total = keys.size();
  for (Step& s : steps) {
    if (s.kind == Step::Kind::kLayout) continue;
    if (reference) {
      s.info.provider = "reference";
      s.info.source = ConfigSource::kReference;
      ++kernel_steps;
      continue;
    }
    const ir::Workload& w = s.workload;
    const std::string key = w.key();
    auto found = chosen.find(key);
    if (found == chosen.end()) {
      ++distinct;
      std::optional<ChosenConfig> pick;
      if (auto fixed = options.fixed_configs.find(key); fixed != options.fixed_configs.end()) {
        pick = fixed->second;
      } else if (options.policy == ConfigPolicy::kDatabase && options.store != nullptr) {
        TP_ASSIGN_OR_RETURN(pick, database_config(*options.store, w, options.device_key, options.target));
        if (pick) {
          Result<std::unique_ptr<kernels::Kernel>> k = compile(w, pick->config, options.threads);
          if (!k.ok()) {
            say("warning: the stored config of " + key + " does not compile here (" + k.status().message() +
                "); using a default");
            pick.reset();
          } else if (const std::optional<kernels::Config> rival =
                         options.check_stored_configs ? rival_default(w, pick->config) : std::nullopt;
                     rival) {
            // Records age: a provider may have improved or changed its default since, and a closest
            // device's best may not be this one's. The stored config runs only when it beats the
            // default it is held against here (rival_default: oneDNN's, else its provider's own).
            const kernels::Config& fallback = *rival;
            TP_ASSIGN_OR_RETURN(std::unique_ptr<kernels::Kernel> d, compile(w, fallback, options.threads));
            TP_ASSIGN_OR_RETURN(double stored_s, quick_time(**k, w));
            TP_ASSIGN_OR_RETURN(double default_s, quick_time(*d, w));
            const bool breaks_chain = !kernels::has_native_layout(**k) && kernels::has_native_layout(*d);
            double conversions_s = 0;
            if (breaks_chain) {
              TP_ASSIGN_OR_RETURN(conversions_s, chain_break_cost(*d, w, default_s));
            }
            if (default_s < stored_s + conversions_s) {
              const std::string whose = fallback.provider == "onednn" ? "oneDNN" : fallback.provider == "halide" ? "Halide" : fallback.provider;
              say("note: the " + std::string(source_name(pick->source)) + " config of " + key + " (" +
                  pick->config.provider + ") runs slower here than " + whose + "'s default (" + ms_text(stored_s) + " ms" +
                  (breaks_chain ? " + " + ms_text(conversions_s) + " ms of layout conversions" : "") + " against " +
                  ms_text(default_s) + " ms); using the default");
              pick = ChosenConfig{fallback, ConfigSource::kDefault, "", 0};
            }
          }
        }
      }
      if (!pick) {
        std::vector<kernels::Config> candidates;
        const bool use_onednn = options.policy != ConfigPolicy::kHalideDefault;
        const bool use_halide = options.policy != ConfigPolicy::kOnednn;
        if (use_onednn && onednn.ok() && (*onednn)->supports(w)) candidates.push_back((*onednn)->default_config(w));
        if ((use_halide || candidates.empty()) && halide.ok() && (*halide)->supports(w))
          candidates.push_back((*halide)->default_config(w));
        if (candidates.empty())
          return Status::Unsupported("node '" + s.info.name + "': no kernel provider supports " + key);
        size_t best = 0;
        if (candidates.size() > 1) {
          // A plain-layout candidate also pays for leaving oneDNN's chain (chain_break_cost).
          std::vector<double> ts;
          std::vector<bool> native;
          double conversions_s = 0;
          for (size_t i = 0; i < candidates.size(); ++i) {
            TP_ASSIGN_OR_RETURN(std::unique_ptr<kernels::Kernel> k, compile(w, candidates[i], options.threads));
            TP_ASSIGN_OR_RETURN(double t, quick_time(*k, w));
            if (candidates[i].provider == "onednn") {
              TP_ASSIGN_OR_RETURN(conversions_s, chain_break_cost(*k, w, t));
            }
            ts.push_back(t);
            native.push_back(kernels::has_native_layout(*k));
          }
          double best_s = INFINITY;
          for (size_t i = 0; i < candidates.size(); ++i) {
            const double t = ts[i] + (native[i] ? 0.0 : conversions_s);
            if (t < best_s) best_s = t, best = i;
          }
        }
        pick = ChosenConfig{candidates[best], ConfigSource::kDefault, "", 0};
      }
      say("[" + std::to_string(distinct) + "/" + std::to_string(total) + "] " + std::string(ir::op_name(w.op)) +
          ": " + pick->config.provider + " (" + std::string(source_name(pick->source)) +
          (pick->device.empty() ? "" : " on " + pick->device) + ")");
      found = chosen.emplace(key, *pick).first;
    }
    const ChosenConfig& c = found->second;
    auto scheduled = scheduled_threads.find(s.info.name);
    s.threads = scheduled == scheduled_threads.end() ? options.threads : scheduled->second;
    s.config = c.config;
    TP_ASSIGN_OR_RETURN(s.kernel, step_kernel(w, c.config, s.threads));
    s.info.provider = c.config.provider;
    s.info.source = c.source;
    s.info.device = c.device;
    s.info.config = c.config.knobs;
    ++kernel_steps;
  }
  return Status::Ok();
}

Status Executor::Impl::compute_predecessors(const std::vector<int>& root, const std::vector<int64_t>& offset,
                                            const std::vector<int64_t>& root_bytes, const ViewOf& view_of) {
  const ir::Graph& g = graph;
  struct Write {
    int step;
    int64_t begin, end;
  };
  std::map<int, std::vector<Write>> writes;  // by storage root
  auto range = [&](ValueId v) {
    const int64_t bytes = view_of[v] ? g.type(v).num_bytes() : root_bytes[root[v]];
    return std::pair<int64_t, int64_t>{offset[v], offset[v] + bytes};
  };
  preds.assign(steps.size(), {});
  for (int j = 0; j < static_cast<int>(steps.size()); ++j) {
    std::set<int> from;
    for (const TensorRef& r : steps[j].in) {
      if (r.value < 0 || g.is_constant(r.value)) continue;
      auto it = writes.find(root[r.value]);
      if (it == writes.end()) continue;
      const auto [b, e] = range(r.value);
      for (const Write& w : it->second)
        if (w.begin < e && b < w.end) from.insert(w.step);
    }
    preds[j].assign(from.begin(), from.end());
    for (ValueId v : steps[j].out) {
      const auto [b, e] = range(v);
      writes[root[v]].push_back({j, b, e});
    }
  }
  return Status::Ok();
}

Status Executor::Impl::order_by_schedule() {
  // Steps named "<op>/<part>" (a merged operator's split) run right after <op>, in its group.
  StageSchedule schedule = *options.schedule;
  for (Stage& stage : schedule.stages)
    for (StageGroup& group : stage.groups) {
      std::vector<std::string> ops;
      for (const std::string& op : group.ops) {
        ops.push_back(op);
        for (const Step& st : steps)
          if (st.info.name.size() > op.size() + 1 && st.info.name.compare(0, op.size() + 1, op + "/") == 0)
            ops.push_back(st.info.name);
      }
      group.ops = std::move(ops);
    }
  // Layout ops the schedule names that are no step here have nothing to run: a channels-last concat
  // copy in the graph the schedule was searched on that is a view here, or, in a graph with the
  // schedule's merges applied, a concat of a merge's whole output, which the merge absorbed (no node
  // of that name is left). They leave the schedule, and so do groups and stages left empty.
  {
    std::set<std::string> step_names, node_names, layout_nodes;
    for (const Step& st : steps) step_names.insert(st.info.name);
    for (const ir::Node& n : graph.nodes()) {
      node_names.insert(n.name);
      if (ir::op_category(n.op) == ir::OpCategory::kLayout) layout_nodes.insert(n.name);
    }
    auto nothing_to_run = [&](const std::string& op) {
      return !step_names.count(op) && (layout_nodes.count(op) || (!schedule.merges.empty() && !node_names.count(op)));
    };
    std::vector<Stage> kept;
    for (Stage& stage : schedule.stages) {
      std::vector<StageGroup> groups;
      for (StageGroup& group : stage.groups) {
        std::erase_if(group.ops, nothing_to_run);
        if (!group.ops.empty()) groups.push_back(std::move(group));
      }
      if (!groups.empty()) kept.push_back(Stage{std::move(groups)});
    }
    schedule.stages = std::move(kept);
  }
  // Layout steps the schedule does not name (a copy that a merge's graph rewrite brought about) run
  // right after their last input's step when their inputs come from one group, else in a stage of
  // their own right after their inputs' last stage.
  {
    std::map<std::string, std::pair<int, int>> where;  // name -> (stage, group)
    for (size_t si = 0; si < schedule.stages.size(); ++si)
      for (size_t gi = 0; gi < schedule.stages[si].groups.size(); ++gi)
        for (const std::string& op : schedule.stages[si].groups[gi].ops) where[op] = {static_cast<int>(si), static_cast<int>(gi)};
    for (size_t i = 0; i < steps.size(); ++i) {
      const Step& st = steps[i];
      if (st.kind != Step::Kind::kLayout || where.count(st.info.name)) continue;
      std::pair<int, int> last{-1, -1};
      bool one_group = true;
      for (int p : preds[i]) {
        auto it = where.find(steps[p].info.name);
        if (it == where.end()) return Status::InvalidArgument("the schedule does not run operator '" + steps[p].info.name + "'");
        if (it->second.first > last.first) last = it->second, one_group = true;
        else if (it->second.first == last.first && it->second.second != last.second) one_group = false;
      }
      if (last.first < 0) {
        schedule.stages.insert(schedule.stages.begin(), Stage{{StageGroup{options.threads, {st.info.name}}}});
        for (auto& [name, at] : where) ++at.first;
        where[st.info.name] = {0, 0};
      } else if (one_group) {
        std::vector<std::string>& ops = schedule.stages[last.first].groups[last.second].ops;
        size_t at = 0;
        for (size_t k = 0; k < ops.size(); ++k)
          for (int p : preds[i])
            if (ops[k] == steps[p].info.name) at = std::max(at, k + 1);
        ops.insert(ops.begin() + static_cast<std::ptrdiff_t>(at), st.info.name);
        where[st.info.name] = last;
      } else {
        schedule.stages.insert(schedule.stages.begin() + last.first + 1, Stage{{StageGroup{options.threads, {st.info.name}}}});
        for (auto& [name, at] : where)
          if (at.first > last.first) ++at.first;
        where[st.info.name] = {last.first + 1, 0};
      }
    }
  }
  std::vector<std::string> names;
  std::map<std::string, int> index;
  for (size_t i = 0; i < steps.size(); ++i) {
    names.push_back(steps[i].info.name);
    if (!index.emplace(steps[i].info.name, static_cast<int>(i)).second)
      return Status::Unsupported("two steps are named '" + steps[i].info.name + "'; a stage schedule needs unique names");
  }
  TP_RETURN_IF_ERROR(validate_schedule(schedule, names, preds, options.threads));
  std::vector<int> order;
  stage_ranges.clear();
  stage_threads.clear();
  for (const Stage& stage : schedule.stages) {
    std::vector<std::pair<int, int>> ranges;
    std::vector<int> threads;
    for (const StageGroup& group : stage.groups) {
      const int begin = static_cast<int>(order.size());
      for (const std::string& op : group.ops) order.push_back(index.at(op));
      ranges.push_back({begin, static_cast<int>(order.size())});
      threads.push_back(group.threads);
    }
    stage_ranges.push_back(std::move(ranges));
    stage_threads.push_back(std::move(threads));
  }
  std::vector<int> new_index(steps.size());
  for (size_t k = 0; k < order.size(); ++k) new_index[order[k]] = static_cast<int>(k);
  std::vector<Step> reordered;
  std::vector<std::vector<int>> new_preds(steps.size());
  for (size_t k = 0; k < order.size(); ++k) {
    reordered.push_back(std::move(steps[order[k]]));
    for (int p : preds[order[k]]) new_preds[k].push_back(new_index[p]);
    std::sort(new_preds[k].begin(), new_preds[k].end());
  }
  steps = std::move(reordered);
  preds = std::move(new_preds);
  return Status::Ok();
}

Status Executor::Impl::plan_memory_and_bind() {
  const ir::Graph& g = graph;
  const size_t num_values = g.values().size();
  // Values that are views of another value: (parent, byte offset).
  std::vector<std::optional<std::pair<ValueId, int64_t>>> view_of(num_values);
  std::vector<bool> written(num_values, false);  // written by a step (may be placed in a concat)
  std::vector<bool> zero_copy_concat(steps.size(), false);

  for (const Step& s : steps)
    if (s.kind != Step::Kind::kLayout)
      for (ValueId v : s.out) written[v] = true;
  // Layout steps: reshape / flatten always, split with one outer block: views of their input.
  for (Step& s : steps) {
    if (s.kind != Step::Kind::kLayout) continue;
    const ValueId in = s.in[0].value;
    if (is_alias_layout(s.op)) {
      view_of[s.out[0]] = {{in, 0}};
    } else if (s.op == OpKind::kSplit) {
      const ir::TensorType& t = g.type(in);
      if (outer_extent(t.shape, normalized_axis(s.attrs.get_int("axis", 0), t.rank())) == 1) {
        int64_t at = 0;
        for (ValueId o : s.out) {
          view_of[o] = {{in, at}};
          at += g.type(o).num_bytes();
        }
      } else {
        for (ValueId o : s.out) written[o] = true;
      }
    } else if (s.op != OpKind::kConcat) {
      for (ValueId o : s.out) written[o] = true;
    }
  }
  TP_RETURN_IF_ERROR(adopt_layouts_and_mark_concats());
  // Concats, outermost first: when every input is written by a step of its own, the inputs become
  // views of the output, and the concat moves nothing. (A channels-last concat copies.)
  std::vector<bool> placed(num_values, false);
  for (size_t i = steps.size(); i-- > 0;) {
    Step& s = steps[i];
    if (s.kind != Step::Kind::kLayout || s.op != OpKind::kConcat) continue;
    if (s.channels_last) {
      written[s.out[0]] = true;
      continue;
    }
    const ir::TensorType& t = g.type(s.out[0]);
    bool ok = outer_extent(t.shape, normalized_axis(s.attrs.get_int("axis", 1), t.rank())) == 1;
    std::set<ValueId> seen;
    for (const TensorRef& r : s.in) {
      const ValueId v = r.value;
      const bool concat_output = g.value(v).kind == ir::ValueKind::kNodeOutput &&
                                 g.node(g.value(v).producer).op == OpKind::kConcat;
      ok = ok && (written[v] || concat_output) && !placed[v] && !view_of[v] && seen.insert(v).second &&
           g.value(v).kind == ir::ValueKind::kNodeOutput;
    }
    if (ok) {
      int64_t at = 0;
      for (const TensorRef& r : s.in) {
        view_of[r.value] = {{s.out[0], at}};
        placed[r.value] = true;
        at += g.type(r.value).num_bytes();
      }
      zero_copy_concat[i] = true;
    } else {
      written[s.out[0]] = true;
    }
  }
  TP_ASSIGN_OR_RETURN(std::vector<int64_t> native_bytes, choose_native_layouts(view_of));
  // Every value resolves to a storage root and an offset.
  std::vector<Storage> storages;
  std::vector<int> root(num_values, -1);
  std::vector<int64_t> offset(num_values, 0);
  std::vector<bool> resolving(num_values, false);
  std::function<Status(ValueId)> resolve = [&](ValueId v) -> Status {
    if (root[v] >= 0) return Status::Ok();
    if (resolving[v]) return Status::Internal("view cycle at value '" + g.value(v).name + "'");
    resolving[v] = true;
    if (view_of[v]) {
      TP_RETURN_IF_ERROR(resolve(view_of[v]->first));
      root[v] = root[view_of[v]->first];
      offset[v] = offset[view_of[v]->first] + view_of[v]->second;
    } else if (g.is_constant(v)) {
      Storage st;
      st.external = true;
      st.ptr = constants[v] ? constants[v]->bytes() : nullptr;
      st.bytes = g.type(v).num_bytes();
      root[v] = static_cast<int>(storages.size());
      storages.push_back(st);
    } else {
      Storage st;
      st.bytes = std::max(g.type(v).num_bytes(), native_bytes[v]);
      root[v] = static_cast<int>(storages.size());
      storages.push_back(st);
    }
    return Status::Ok();
  };
  for (size_t v = 0; v < num_values; ++v)
    if (g.values()[v].type) TP_RETURN_IF_ERROR(resolve(static_cast<ValueId>(v)));

  // Lifetimes over the steps that run (views and zero-copy concats are no steps). A copying layout
  // step (slice, transpose) whose output is placed in a concat still runs: it writes the slice.
  std::vector<Step> kept;
  for (size_t i = 0; i < steps.size(); ++i) {
    Step& s = steps[i];
    const bool view_step =
        s.kind == Step::Kind::kLayout &&
        (zero_copy_concat[i] ||
         std::all_of(s.out.begin(), s.out.end(), [&](ValueId o) { return view_of[o].has_value() && !placed[o]; }));
    if (view_step) continue;
    kept.push_back(std::move(s));
  }
  steps = std::move(kept);
  std::vector<int64_t> root_bytes(storages.size());
  for (size_t i = 0; i < storages.size(); ++i) root_bytes[i] = storages[i].bytes;
  TP_RETURN_IF_ERROR(compute_predecessors(root, offset, root_bytes, view_of));
  // When a step runs: its index, or with a schedule its stage (steps of one stage may run at once).
  std::vector<int> time(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) time[i] = static_cast<int>(i);
  if (options.schedule != nullptr) {
    TP_RETURN_IF_ERROR(order_by_schedule());
    for (size_t st = 0; st < stage_ranges.size(); ++st)
      for (auto [b, e] : stage_ranges[st])
        for (int i = b; i < e; ++i) time[i] = static_cast<int>(st);
  }
  const int64_t in_place_bytes = options.reuse_memory ? accumulate_in_place(time, root, offset, storages) : 0;
  const int last = steps.empty() ? 0 : *std::max_element(time.begin(), time.end());
  auto touch = [&](ValueId v, int step) {
    Storage& st = storages[root[v]];
    const int t = options.reuse_memory ? time[step] : 0;
    st.first = st.first < 0 ? t : std::min(st.first, t);
    st.last = std::max(st.last, options.reuse_memory ? t : last);
  };
  for (ValueId v : g.inputs()) {
    Storage& st = storages[root[v]];
    st.first = 0;
    st.last = last;
  }
  for (int i = 0; i < static_cast<int>(steps.size()); ++i) {
    for (const TensorRef& r : steps[i].in)
      if (r.value >= 0) touch(r.value, i);
    for (ValueId v : steps[i].out) touch(v, i);
  }
  for (ValueId v : g.outputs()) {
    Storage& st = storages[root[v]];
    if (st.first < 0) st.first = 0;
    st.last = last;
  }
  std::vector<BufferLifetime> lifetimes;
  std::vector<int> buffer_of(storages.size(), -1);
  for (size_t i = 0; i < storages.size(); ++i) {
    if (storages[i].external || storages[i].first < 0) continue;
    buffer_of[i] = static_cast<int>(lifetimes.size());
    lifetimes.push_back({storages[i].bytes, storages[i].first, storages[i].last});
  }
  plan = plan_memory(lifetimes);
  plan.naive_bytes += in_place_bytes;  // every activation in a buffer of its own
  std::byte* base = static_cast<std::byte*>(std::aligned_alloc(64, std::max<int64_t>(plan.arena_bytes, 64)));
  if (base == nullptr) return Status::IoError("cannot allocate the " + std::to_string(plan.arena_bytes) +
                                                        "-byte activation arena");
  std::memset(base, 0, plan.arena_bytes);
  arena.reset(base);
  views.resize(num_values);
  for (size_t v = 0; v < num_values; ++v) {
    if (!g.values()[v].type) continue;
    const Storage& st = storages[root[v]];
    std::byte* p = nullptr;
    if (st.external) p = st.ptr;
    else if (buffer_of[root[v]] >= 0) p = base + plan.offsets[buffer_of[root[v]]];
    if (p == nullptr) continue;  // neither read nor written by any step
    views[v] = std::make_unique<HostTensor>(HostTensor::view(*g.values()[v].type, p + offset[v]));
  }
  for (Step& s : steps) {
    for (const TensorRef& r : s.in) {
      const HostTensor* t = r.owned >= 0 ? owned[r.owned].get() : views[r.value].get();
      if (t == nullptr) return Status::Internal("step '" + s.info.name + "' reads a value with no memory");
      s.inputs.push_back(t);
    }
    for (ValueId v : s.out) s.outputs.push_back(views[v].get());
    if (s.kind == Step::Kind::kKernel && s.in.size() > 1 && s.in[1].value >= 0 && !g.is_constant(s.in[1].value) &&
        ir::op_category(s.workload.op) == ir::OpCategory::kAnchor) {
      HostTensor& w = *views[s.in[1].value];
      for (auto& view : s.weight_views) view = std::make_unique<HostTensor>(HostTensor::view(w.type(), w.bytes()));
      s.inputs[1] = s.weight_views[0].get();
    }
    s.info.threads = s.threads;
    infos.push_back(s.info);
  }
  return Status::Ok();
}

Result<std::unique_ptr<Executor>> Executor::load(const ir::Graph& graph, const ExecutorOptions& options) {
  if (options.threads < 1) return Status::InvalidArgument("threads must be at least 1");
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->graph = graph;
  ir::Graph& g = impl->graph;
  TP_RETURN_IF_ERROR(g.validate());
  for (ValueId v : g.inputs())
    if (g.type(v).dtype != ir::DType::kFloat32)
      return Status::Unsupported("graph input '" + g.value(v).name + "' is " + g.type(v).to_string() +
                                 "; only float32 inputs are supported");
  for (ValueId v : g.outputs())
    if (g.type(v).dtype != ir::DType::kFloat32)
      return Status::Unsupported("graph output '" + g.value(v).name + "' is " + g.type(v).to_string() +
                                 "; only float32 outputs are supported");
  if (options.schedule != nullptr) {
    if (options.policy == ConfigPolicy::kReference)
      return Status::InvalidArgument("a stage schedule runs kernels; the reference path has none");
    for (const Stage& stage : options.schedule->stages)
      for (const StageGroup& group : stage.groups)
        for (const std::string& op : group.ops) impl->scheduled_threads[op] = group.threads;
  }
  TP_ASSIGN_OR_RETURN(impl->constants, load_constants(g, options.seed));
  TP_RETURN_IF_ERROR(impl->build_steps());
  TP_RETURN_IF_ERROR(impl->choose_and_compile());
  TP_RETURN_IF_ERROR(impl->plan_memory_and_bind());
  size_t widest = 1;
  for (const auto& ranges : impl->stage_ranges) {
    std::vector<std::function<Status()>> tasks;
    for (auto [b, e] : ranges) tasks.push_back([m = impl.get(), b, e] { return run_range(m->steps, b, e); });
    widest = std::max(widest, tasks.size());
    impl->stage_tasks.push_back(std::move(tasks));
  }
  if (widest > 1) impl->pool = std::make_unique<GroupPool>(static_cast<int>(widest) - 1, options.threads);
  std::unique_ptr<Executor> e(new Executor(std::move(impl)));
  for (ValueId v : g.inputs()) {
    e->inputs_.push_back(e->impl_->views[v].get());
    e->input_names_.push_back(g.value(v).name);
  }
  for (size_t i = 0; i < g.outputs().size(); ++i) {
    e->outputs_.push_back(e->impl_->views[g.outputs()[i]].get());
    e->output_names_.push_back(g.output_name(i));
  }
  for (size_t i = 0; i < e->inputs_.size(); ++i)
    if (e->inputs_[i] == nullptr) return Status::Internal("graph input '" + e->input_names_[i] + "' has no memory");
  for (size_t i = 0; i < e->outputs_.size(); ++i)
    if (e->outputs_[i] == nullptr) return Status::Internal("graph output '" + e->output_names_[i] + "' has no memory");
  e->impl_->say("warming up (packing weights)");
  TP_RETURN_IF_ERROR(e->run());
  return e;
}

Executor::Executor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executor::~Executor() = default;

Status Executor::run() {
  Impl& m = *impl_;
  if (m.stage_tasks.empty()) return run_range(m.steps, 0, static_cast<int>(m.steps.size()));
  for (size_t k = 0; k < m.stage_tasks.size(); ++k) TP_RETURN_IF_ERROR(m.run_stage(k));
  return Status::Ok();
}

void apply_stage_timing(StageTiming timing, std::function<void()> evict, measure::TimingOptions& t) {
  if (timing == StageTiming::kWarm) return;
  t.before_timing = std::move(evict);
  t.before_every_run = timing == StageTiming::kCold;
}

Result<double> Executor::time_stage(const std::vector<std::vector<int>>& groups, const std::vector<int>& threads,
                                    int repeat, StageTiming timing) {
  Impl& m = *impl_;
  if (m.options.reuse_memory)
    return Status::InvalidArgument("time_stage needs an executor loaded with reuse_memory = false");
  if (groups.empty() || groups.size() != threads.size())
    return Status::InvalidArgument("time_stage takes one thread count per group");
  std::vector<std::vector<std::pair<Step*, kernels::Kernel*>>> plan(groups.size());
  for (size_t k = 0; k < groups.size(); ++k) {
    if (threads[k] < 1) return Status::InvalidArgument("a group needs at least one thread");
    for (int i : groups[k]) {
      if (i < 0 || i >= static_cast<int>(m.steps.size()))
        return Status::InvalidArgument("time_stage: no step " + std::to_string(i));
      TP_ASSIGN_OR_RETURN(kernels::Kernel * kernel, m.kernel_at(m.steps[i], threads[k]));
      plan[k].push_back({&m.steps[i], kernel});
    }
  }
  if (groups.size() > 1 && (!m.pool || m.pool->workers() + 1 < static_cast<int>(groups.size())))
    m.pool = std::make_unique<GroupPool>(static_cast<int>(groups.size()) - 1, m.options.threads);
  std::vector<std::function<Status()>> tasks;
  for (size_t k = 0; k < groups.size(); ++k)
    tasks.push_back([&plan, k] {
      for (auto [s, kernel] : plan[k]) {
        Status st = run_step(*s, kernel);
        if (!st.ok()) return st.WithContext("step '" + s->info.name + "'");
      }
      return Status::Ok();
    });
  auto once = [&] { return tasks.size() == 1 ? tasks[0]() : m.pool->run(tasks, threads); };
  const double paused_s = steady_seconds() - m.last_timed_s;  // the search's computing, a compile, ...
  TP_RETURN_IF_ERROR(once());  // packs the weights of kernels used for the first time
  measure::TimingOptions t;
  t.warmup = 0;  // the run above was it
  t.repeat = std::max(repeat, 1);
  t.min_repeat_ms = 1;
  // After a pause (a search that computed for a while between two stages) the first timing is
  // thrown away (TimingOptions::discarded_timings); stages timed one after another skip it.
  t.discarded_timings = paused_s > kStagePauseS ? 1 : 0;
  apply_stage_timing(
      timing,
      [&plan] {
        for (const auto& group : plan)
          for (const auto& [s, kernel] : group) {
            for (const HostTensor* in : s->inputs)
              if (in != nullptr) measure::evict(in->bytes(), in->type().num_bytes());
            for (const HostTensor* out : s->outputs)
              if (out != nullptr) measure::evict(out->bytes(), out->type().num_bytes());
          }
      },
      t);
  TP_ASSIGN_OR_RETURN(measure::Timing runs, measure::time_runs(once, t));
  m.last_timed_s = steady_seconds();
  std::sort(runs.costs.begin(), runs.costs.end());
  return runs.costs[runs.costs.size() / 2];
}

std::vector<std::vector<std::vector<int>>> Executor::stages() const {
  std::vector<std::vector<std::vector<int>>> out;
  for (const auto& ranges : impl_->stage_ranges) {
    std::vector<std::vector<int>> groups;
    for (auto [b, e] : ranges) {
      groups.emplace_back();
      for (int i = b; i < e; ++i) groups.back().push_back(i);
    }
    out.push_back(std::move(groups));
  }
  return out;
}

Status Executor::run_stages_timed(std::vector<double>& stage_seconds) {
  Impl& m = *impl_;
  if (m.stage_tasks.empty())
    return Status::InvalidArgument("run_stages_timed needs an executor loaded with a stage schedule");
  stage_seconds.resize(m.stage_tasks.size(), 0.0);
  for (size_t k = 0; k < m.stage_tasks.size(); ++k) {
    const double t0 = steady_seconds();
    TP_RETURN_IF_ERROR(m.run_stage(k));
    stage_seconds[k] += steady_seconds() - t0;
  }
  return Status::Ok();
}

Status Executor::run_timed(std::vector<double>& step_seconds) {
  step_seconds.resize(impl_->steps.size(), 0.0);
  for (size_t i = 0; i < impl_->steps.size(); ++i) {
    Step& s = impl_->steps[i];
    const double t0 = steady_seconds();
    Status st = run_step(s);
    step_seconds[i] += steady_seconds() - t0;
    if (!st.ok()) return st.WithContext("step '" + s.info.name + "' (" + s.info.op + ")");
  }
  return Status::Ok();
}

const std::vector<StepInfo>& Executor::steps() const { return impl_->infos; }
const std::vector<std::vector<int>>& Executor::step_predecessors() const { return impl_->preds; }
int64_t Executor::arena_bytes() const { return impl_->plan.arena_bytes; }
int64_t Executor::naive_bytes() const { return impl_->plan.naive_bytes; }
int Executor::compiled_kernels() const { return impl_->compiles; }
int Executor::kernel_steps() const { return impl_->kernel_steps; }
int Executor::native_layout_values() const { return impl_->native_values; }
int Executor::in_place_accumulations() const { return impl_->in_place; }

}  // namespace tensorperf::runtime
