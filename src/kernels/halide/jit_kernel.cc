// A JIT-compiled Halide pipeline as a Kernel: buffers wrap the caller's memory (no copies in run()),
// constant inputs with a packer are packed once per tensor, the thread count is set per run.
// Concurrency: inputs are bound per call (a ParamMap, not the shared ImageParams), so kernels,
// instances of one compiled pipeline included, may run at once on different threads.
// Threads: a kernel's parallel loops never use the JIT runtime's own thread pool. A 1-thread kernel
// runs them in the calling thread; a kernel of T threads runs each on an OpenMP team of T threads
// (a per-call do_par_for handler), the team oneDNN's kernels use from the same thread. A process
// that runs both providers thus has one set of worker threads (Halide's pool beside OpenMP's
// spinning team contended for the cores: docs/runtime.md, "Threads").
// Inside a concurrent group of a stage (runtime/group_pool.h, an OpenMP team with nesting enabled)
// the team is nested, so groups each get their own threads.
#include <omp.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <set>

#include "kernels/halide/halide_template.h"

namespace tensorperf::kernels::halide {
namespace {

Halide::Buffer<float> wrap(const HostTensor& t, const std::vector<int>& view = {}) {
  std::vector<int> sizes = view.empty() ? halide_sizes(t.type().shape) : view;
  // A rank-0 tensor is a zero-dimensional buffer of one element, as the pipeline's parameter is.
  return Halide::Buffer<float>(const_cast<float*>(t.f32()), sizes);
}

// A parallel loop run serially in the calling thread: what a 1-thread kernel does, without touching
// the JIT runtime's shared thread pool (so that concurrent 1-thread kernels do not contend for it).
int serial_do_par_for(Halide::JITUserContext* context, int (*f)(Halide::JITUserContext*, int, uint8_t*), int min,
                      int extent, uint8_t* closure) {
  for (int i = min; i < min + extent; ++i)
    if (int status = f(context, i, closure); status != 0) return status;
  return 0;
}

// A pipeline's user context that also says how its parallel loops run: on an OpenMP team of
// `threads` threads, opened at the OpenMP nesting level `level` (a loop reached from inside one of
// the team's iterations, a nested parallel loop of the schedule, runs in its thread).
struct OmpContext : Halide::JITUserContext {
  int threads = 1;
  int level = 0;
};

int omp_do_par_for(Halide::JITUserContext* context, int (*f)(Halide::JITUserContext*, int, uint8_t*), int min,
                   int extent, uint8_t* closure) {
  const auto* c = static_cast<const OmpContext*>(context);
  const int threads = omp_get_level() > c->level ? 1 : c->threads;
  std::atomic<int> failed{0};
#pragma omp parallel for num_threads(threads) if (threads > 1 && extent > 1) schedule(dynamic, 1)
  for (int i = min; i < min + extent; ++i) {
    if (failed.load(std::memory_order_relaxed) != 0) continue;
    if (int status = f(context, i, closure); status != 0) failed.store(status, std::memory_order_relaxed);
  }
  return failed.load();
}

// What instances of one compiled pipeline share: the program (params, packers, views) and the
// JIT-compiled pipeline. Both are only read at run time (inputs are bound per call).
struct CompiledPipeline {
  Program program;
  Halide::Pipeline pipeline;
  Halide::Target target;
  int threads;
  bool threads_in_code;  // the schedule was derived for `threads` (an autoscheduler's)
};

class JitKernel final : public Kernel {
 public:
  explicit JitKernel(std::shared_ptr<CompiledPipeline> code) : code_(std::move(code)) {}

  Status run(const std::vector<const HostTensor*>& inputs, HostTensor& output) override {
    const Program& program = code_->program;
    if (inputs.size() != program.inputs.size())
      return Status::InvalidArgument("kernel takes " + std::to_string(program.inputs.size()) + " inputs, got " +
                                     std::to_string(inputs.size()));
    try {
      OmpContext context;
      if (code_->threads == 1) {
        context.handlers.custom_do_par_for = serial_do_par_for;
      } else {
        context.threads = code_->threads;
        context.level = omp_get_level();
        context.handlers.custom_do_par_for = omp_do_par_for;
      }
      Halide::ParamMap params;
      for (size_t i = 0; i < inputs.size(); ++i) {
        auto packer = program.packers.find(i);
        if (packer == program.packers.end()) {
          auto view = program.input_views.find(i);
          params.set(program.inputs[i], view == program.input_views.end() ? wrap(*inputs[i]) : wrap(*inputs[i], view->second));
          continue;
        }
        // Packed copies are reused while the caller passes the same tensor (contract in provider.h).
        if (packed_from_[i] != inputs[i]) {
          packed_[i] = packer->second(*inputs[i]);
          packed_from_[i] = inputs[i];
        }
        params.set(program.inputs[i], packed_[i]);
      }
      Halide::Buffer<float> out = wrap(output, program.output_view);
      code_->pipeline.realize(&context, Halide::Realization(out), code_->target, params);
    } catch (const Halide::Error& e) {
      return Status::Internal(std::string("Halide kernel failed at run time: ") + e.what());
    }
    return Status::Ok();
  }

  std::unique_ptr<Kernel> new_instance() const override { return std::make_unique<JitKernel>(code_); }
  std::unique_ptr<Kernel> instance_with_threads(int threads) const override {
    if (threads < 1 || (code_->threads_in_code && threads != code_->threads)) return nullptr;
    if (threads == code_->threads) return new_instance();
    auto code = std::make_shared<CompiledPipeline>(*code_);  // the same JIT code (Pipeline is a handle)
    code->threads = threads;
    return std::make_unique<JitKernel>(std::move(code));
  }

 private:
  std::shared_ptr<CompiledPipeline> code_;
  std::map<size_t, const HostTensor*> packed_from_;
  std::map<size_t, Halide::Buffer<float>> packed_;
};

}  // namespace

Result<Halide::Target> parse_target(const std::string& target) {
  if (target.empty() || target == "host") return Halide::get_host_target();
  if (!Halide::Target::validate_target_string(target))
    return Status::InvalidArgument("'" + target + "' is not a Halide target string (e.g. x86-64-linux-avx2-fma)");
  return Halide::Target(target);
}

Status warm_up_jit(const std::string& target) {
  TP_ASSIGN_OR_RETURN(Halide::Target t, parse_target(target));
  static std::mutex mu;
  static std::set<std::string> done;
  std::lock_guard<std::mutex> lock(mu);
  if (done.count(t.to_string())) return Status::Ok();
  try {
    Halide::ImageParam in(Halide::Float(32), 2, "warm_in");
    Halide::Var x("x"), y("y");
    Halide::Func f("warm_up");
    f(x, y) = in(x, y) * 2.0f + 1.0f;
    f.vectorize(x, 8, Halide::TailStrategy::GuardWithIf).parallel(y);
    f.compile_jit(t);
  } catch (const Halide::Error& e) {
    return Status::Internal(std::string("Halide JIT warm-up failed: ") + e.what());
  }
  done.insert(t.to_string());
  return Status::Ok();
}

Result<std::unique_ptr<Kernel>> compile_program(Program program, const CompileOptions& options,
                                                const PreparePipeline& prepare) {
  if (options.threads < 1) return Status::InvalidArgument("threads must be at least 1");
  TP_ASSIGN_OR_RETURN(Halide::Target target, parse_target(options.target));
  try {
    Halide::Pipeline pipeline(program.output);
    if (prepare) prepare(pipeline, target);
    pipeline.compile_jit(target);
    return std::unique_ptr<Kernel>(new JitKernel(std::make_shared<CompiledPipeline>(
        CompiledPipeline{std::move(program), std::move(pipeline), target, options.threads, static_cast<bool>(prepare)})));
  } catch (const Halide::CompileError& e) {
    return Status::InvalidArgument(std::string("schedule does not compile: ") + e.what());
  } catch (const Halide::Error& e) {
    return Status::Internal(std::string("Halide compile failed: ") + e.what());
  }
}

}  // namespace tensorperf::kernels::halide
