// Private to kernels/halide: the shape every per-op Halide template has, and the helpers they share.
// This is the one header that includes Halide.h; only .cc files of kernels/halide include it, never
// another layer (their view is kernels/provider.h).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "Halide.h"
#include "base/status.h"
#include "ir/workload.h"
#include "kernels/host_tensor.h"
#include "kernels/provider.h"

namespace tensorperf::kernels::halide {

// What a template builds for one (workload, config): the output Func, one ImageParam per kernel input
// (kernel_input_types order), and packers for constant inputs read in a blocked layout. A packer turns
// the caller's tensor into the param's buffer; the kernel packs on first use, outside timed runs.
// Views: a template may read an input (or write the output) under other Halide sizes with the same
// element count, e.g. dense sees x[2,128,768] as (768, 256).
struct Program {
  Halide::Func output;
  std::vector<Halide::ImageParam> inputs;
  std::map<size_t, std::function<Halide::Buffer<float>(const HostTensor&)>> packers;
  std::map<size_t, std::vector<int>> input_views;
  std::vector<int> output_view;  // empty: the output's own shape
};

// Typed, checked access to a config's knobs. Missing (unless given a fallback) or mistyped knobs are
// InvalidArgument.
// schedule() false asks a template for its algorithm alone (Program.output unscheduled), for the
// autoschedulers; the knobs still choose the algorithm's layout.
class Knobs {
 public:
  explicit Knobs(const nlohmann::json& knobs, bool schedule = true) : knobs_(knobs), schedule_(schedule) {}
  Result<int> get_int(const std::string& name) const;
  // A knob added after configs were stored: `fallback` when the config lacks it (the value that
  // reproduces the schedule from before the knob existed).
  Result<int> get_int(const std::string& name, int fallback) const;
  Result<std::string> get_string(const std::string& name) const;
  Result<std::string> get_string(const std::string& name, const std::string& fallback) const;
  bool schedule() const { return schedule_; }

 private:
  const nlohmann::json& knobs_;
  bool schedule_;
};

// One op family's template: its knob space, a default that always compiles, the checks of a config
// (the ones build() makes before it builds anything: cheap and Halide-free), the builder, and
// optionally hand-picked seed configs for a target's vector width in lanes, and schedule features
// (Provider::schedule_features) of a valid config, computed from the knobs and shapes alone.
struct OpTemplate {
  std::function<ConfigSpace(const ir::Workload&)> space;
  std::function<nlohmann::json(const ir::Workload&)> default_knobs;
  std::function<Status(const ir::Workload&, const Knobs&)> validate;
  std::function<Result<Program>(const ir::Workload&, const Knobs&)> build;
  std::function<std::vector<nlohmann::json>(const ir::Workload&, int)> seeds = {};
  std::function<Result<std::vector<double>>(const ir::Workload&, const Knobs&)> features = {};
};

// Per-family templates (one file each).
const OpTemplate& conv2d_template();
const OpTemplate& dense_template();
const OpTemplate& matmul_template();  // matmul and batch_matmul
const OpTemplate& pool_template();    // max_pool2d, avg_pool2d, global_avg_pool2d
const OpTemplate& softmax_template();
const OpTemplate& layer_norm_template();
const OpTemplate& elementwise_template();  // add, mul, activations, batch_norm

// The template of an op kind, or nullptr (the table is in halide_provider.cc).
const OpTemplate* find_template(ir::OpKind op);

// Halide dims of an NCHW-ordered shape (innermost first).
std::vector<int> halide_sizes(const ir::Shape& shape);
// ImageParams for every kernel input, named in0, in1, ...; the caller may replace packed ones.
std::vector<Halide::ImageParam> make_params(const ir::Workload& w);
// The default vector width of a template that vectorizes along its output's rows (the innermost
// dim): eight lanes, a guarded vector where a row is shorter (a 7-wide ReLU ran faster so than at
// four lanes and a tail, on the Intel host of 2026-12-02), none for rows under four elements.
int row_vector_width(const ir::Workload& w);

// Sizes (Halide order) of kernel input `i` as the pipeline reads it: its view, its packed form (the
// packer run once on zeros), or its own shape; and the output's.
Result<std::vector<int>> input_sizes(const Program& program, const ir::Workload& w, size_t i);
std::vector<int> output_sizes(const Program& program, const ir::Workload& w);
// Pins every input's and the output's bounds (min 0, the sizes above) and dense strides, so that
// Halide compiles for exactly these buffers (static_shapes.cc). Returns the inputs' sizes.
Result<std::vector<std::vector<int>>> pin_shapes(Program& program, const ir::Workload& w);

// The activation `op` ("relu", "relu6", "sigmoid", "tanh", "gelu") applied to v.
Halide::Expr activation(const std::string& op, Halide::Expr v);
// Applies w.epilogue to `value` at output coordinates `coords` (Halide order, innermost first),
// reading the epilogue tensors from params[w.inputs.size()...].
Halide::Expr apply_epilogue(const ir::Workload& w, Halide::Expr value, const std::vector<Halide::Expr>& coords,
                            const std::vector<Halide::ImageParam>& params);

// JIT-compiles `program` for options.target and wraps it as a Kernel that runs with options.threads.
// Halide user errors (a schedule that does not fit) are InvalidArgument; others Internal.
// `prepare` (optional) runs on the pipeline first, e.g. to apply an autoscheduler.
using PreparePipeline = std::function<void(Halide::Pipeline&, const Halide::Target&)>;
Result<std::unique_ptr<Kernel>> compile_program(Program program, const CompileOptions& options,
                                                const PreparePipeline& prepare = {});
// The Halide target for a CompileOptions target string ("host" or a Halide target string).
Result<Halide::Target> parse_target(const std::string& target);
// Compiles (never runs) a small parallel, vectorised pipeline for `target` once per process, which
// builds the JIT runtime modules that every later compile for that target reuses. Starts no thread.
Status warm_up_jit(const std::string& target);

// Schedules a matrix product's accumulator `acc` (pure dims lane, row; update over the 1-D RDom `k`
// of extent k_extent): the update loops lane, row, then k (split into ki inside ko when
// 0 < k_block < k_extent), lane vectorised by vector_width and unrolled in the update, row unrolled
// when unroll_rows. Shared by the dense and matmul templates.
void schedule_matrix_accumulator(Halide::Func acc, Halide::Var lane, Halide::Var row, Halide::RDom k, int k_block,
                                 int k_extent, int vector_width, bool unroll_rows);

// Tail strategy knob value ("guard", "shift_inwards", "round_up") to Halide's enum.
Result<Halide::TailStrategy> tail_strategy(const std::string& name);

}  // namespace tensorperf::kernels::halide
