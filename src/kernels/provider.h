// Kernel providers: who can compile a workload under a config into something runnable. Halide
// (schedulable, the main search space) and oneDNN (vendor library, small space) are providers; the
// table of providers is in provider_registry.cc. No Halide or oneDNN type appears here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "ir/workload.h"
#include "kernels/host_tensor.h"

namespace tensorperf::kernels {

// One point of a workload's schedule space: knob name -> value (ints, strings), serialised as JSON.
struct Config {
  std::string provider;  // "halide", "onednn"
  nlohmann::json knobs = nlohmann::json::object();
};

// What to compile for. `target` is a Halide target string ("x86-64-linux-avx2-fma", ...); providers
// that are not Halide map it to their own ISA limit. `threads` is the thread count the kernel uses.
struct CompileOptions {
  std::string target = "host";
  int threads = 1;
};

// The inputs a workload's kernel takes, in order: its main inputs (Workload::inputs), then one
// per epilogue op that needs a tensor: "bias" -> [C_out] (or [N_last]), "add"/"mul" -> output type.
std::vector<ir::TensorType> kernel_input_types(const ir::Workload& w);

// A compiled kernel, ready to run. run() may be called many times; not thread-safe.
// Weights: a kernel may pack a constant input (the weight of conv2d / dense) into its own layout on
// the first run() that sees that tensor, and reuse the packed copy while the same tensor object is
// passed again. So the first run() includes packing (warm up before timing), and a caller that
// rewrites a weight tensor in place must pass another tensor object or compile a new kernel.
// Code and state: the compiled code is immutable and shared; what a run keeps (packed weights,
// scratch and reorder buffers) belongs to one Kernel object. new_instance() gives another object
// over the same code, so the graph runtime compiles a workload once and gives each node that runs
// it an instance of its own (ResNet-18's four 64x56x56 convolutions: one compile, four packed
// weights).
// Threads: the thread count chosen at compile time (CompileOptions::threads) is applied by every
// run() of the kernel. What it sets is process-wide for Halide (the JIT runtime's worker count,
// set before each run when it differs) and per calling thread for oneDNN (OpenMP's
// omp_set_num_threads), so kernels of different thread counts may alternate on one thread.
class Kernel {
 public:
  virtual ~Kernel() = default;
  // REQUIRES: inputs match kernel_input_types(w) and output has w.output's type. Inputs and output
  // may be views (HostTensor::view) and need no particular alignment.
  virtual Status run(const std::vector<const HostTensor*>& inputs, HostTensor& output) = 0;
  // Another kernel over the same compiled code with state of its own (nothing packed yet); no
  // compilation. Instances are independent and may outlive this one; two instances must not run at
  // the same time. nullptr: this kernel cannot share its code (compile again instead).
  virtual std::unique_ptr<Kernel> new_instance() const { return nullptr; }
  // Like new_instance(), but runs with `threads` threads: the kernel compile(..., {target, threads})
  // would give, without compiling. nullptr when the thread count is part of the compiled code (an
  // autoscheduled pipeline, a oneDNN primitive): compile again for that count instead.
  virtual std::unique_ptr<Kernel> instance_with_threads(int /*threads*/) const { return nullptr; }

  // Activation layouts. By default every input and the output are plain row-major tensors of their
  // types. A kernel whose code works on another layout (oneDNN's channel-blocked nChw16c) converts
  // inside run(); it names that layout here, so a graph runtime can keep a tensor in it between two
  // kernels that agree and skip both conversions. A layout is an opaque key: equal keys mean the
  // same bytes for the same logical tensor. `bytes` is its size (blocked layouts pad channels).
  // `channels_last`: the layout is dense NHWC (a rank-4 tensor's channels innermost), which a runtime
  // can move without the kernel (a channel concat copies each pixel's channels).
  struct NativeLayout {
    std::string key;  // empty: plain only
    int64_t bytes = 0;
    bool channels_last = false;
  };
  virtual NativeLayout native_output_layout() const { return {}; }
  // For kernel input `index` (kernel_input_types order).
  virtual NativeLayout native_input_layout(size_t /*index*/) const { return {}; }
  // Other layouts input `index` could take instead (a kernel that runs in whatever layout its
  // producer writes, as oneDNN's pooling does). adopt_input_layout(index, key) makes this object
  // work in the one with that key from now on: native_input_layout(index) returns it, and
  // native_output_layout() the output layout that goes with it. Call before use_native_layouts.
  // InvalidArgument: a key not listed.
  virtual std::vector<NativeLayout> alternative_input_layouts(size_t /*index*/) const { return {}; }
  // The input whose values the kernel copies into its output before accumulating onto them (a
  // residual add done as oneDNN's sum post-op), if any. A runtime that passes that input's own
  // memory as the output (the input is dead after this kernel, and in the output's layout) saves
  // the copy: run() skips it when the two are the same bytes.
  virtual std::optional<size_t> accumulated_input() const { return std::nullopt; }
  virtual Status adopt_input_layout(size_t /*index*/, const std::string& key) {
    return Status::InvalidArgument("this kernel takes no other layout ('" + key + "')");
  }
  // From now on input i arrives in native_input_layout(i) where native_inputs[i] is true (missing
  // entries: plain), and the output is left in native_output_layout() when native_output is true.
  // Per kernel object (a new_instance() starts plain). InvalidArgument: a layout the kernel did not name.
  virtual Status use_native_layouts(const std::vector<bool>& native_inputs, bool native_output) {
    const bool any = native_output || std::find(native_inputs.begin(), native_inputs.end(), true) != native_inputs.end();
    return any ? Status::InvalidArgument("this kernel reads and writes plain tensors only") : Status::Ok();
  }
};

// A knob space: each knob has a finite list of candidate values. Configs are points in the product,
// possibly with constraints checked by the provider (a rejected point is an instantiation error).
struct Knob {
  std::string name;
  std::vector<nlohmann::json> values;
};
struct ConfigSpace {
  std::vector<Knob> knobs;
  double size() const;  // product of value counts (double: spaces are huge)
  // Every point, as configs of `provider`, the first knob varying slowest.
  // REQUIRES: size() is small (oneDNN's spaces; Halide's are far too large).
  std::vector<Config> enumerate(const std::string& provider) const;
};

class Provider {
 public:
  virtual ~Provider() = default;
  virtual std::string name() const = 0;
  virtual bool supports(const ir::Workload& w) const = 0;
  virtual ConfigSpace space(const ir::Workload& w) const = 0;
  // A simple default schedule that always compiles.
  virtual Config default_config(const ir::Workload& w) const = 0;
  // The provider's checks of a config for `w` without compiling or building anything: knob names,
  // types, values and their combinations. InvalidArgument says what is wrong; compile() rejects the
  // same configs with the same message. Cheap (microseconds) and starts nothing, so a tuner screens
  // every candidate with it. A config that passes can still fail to compile (a schedule the
  // compiler rejects while lowering).
  virtual Status validate(const ir::Workload& w, const Config& c) const = 0;
  // Hand-picked configs worth measuring early for `w` when compiling for `target` (a Halide target
  // string or "host"); empty when the provider has none for this op. Each passes validate().
  virtual std::vector<Config> seed_configs(const ir::Workload& w, const std::string& target) const = 0;
  // Numbers that describe the schedule a valid config builds for `w`, derived from its knobs and
  // the shapes without building anything (register tile size, parallel tasks, padding waste,
  // block footprints, ...), for learned models. The same length for every config of w's op kind;
  // empty when the provider has none for it. Errors: the config is invalid (as validate()).
  virtual Result<std::vector<double>> schedule_features(const ir::Workload& w, const Config& c) const = 0;
  // Without compiling: the family of native layout (Kernel::native_input_layout(0) and
  // native_output_layout()) a kernel of (w, c) is expected to name, e.g. "onednn:blocked16"; two
  // configs whose families are equal are expected to agree, so that a graph runtime chains them.
  // "onednn:nhwc" is channels last (NativeLayout::channels_last); "onednn:adopt" names a kernel
  // that takes its producer's layout (Kernel::adopt_input_layout).
  // Empty: the kernel reads and writes plain tensors (every Halide kernel). An estimate for
  // predicting what a graph costs: the compiled kernels' own layouts decide at run time (a oneDNN
  // convolution of 3 input channels keeps a plain input, say).
  virtual std::string expected_native_layout(const ir::Workload& /*w*/, const Config& /*c*/) const { return {}; }
  // Instantiation errors (bad knob values, or a schedule Halide rejects for this workload, as
  // AutoTVM raises InstantiationError at schedule time) are InvalidArgument; failures of the
  // compiler itself are Internal.
  virtual Result<std::unique_ptr<Kernel>> compile(const ir::Workload& w, const Config& c,
                                                  const CompileOptions& options) const = 0;
  // Builds, once per process and target, what every compile() for `target` needs first (Halide's
  // JIT runtime: about 0.4 s of the first compile in a process). Starts no thread, so the process
  // may still fork measurement workers afterwards, and they inherit it: each worker's compile() is
  // then that much faster. Errors: an invalid target.
  virtual Status warm_up(const std::string& target) const = 0;
};

// The registered providers, and lookup by name (NotFound lists the known ones).
const std::vector<const Provider*>& providers();
Result<const Provider*> find_provider(const std::string& name);

// SIMD lanes of a float32 vector for a target string ("host" or a Halide target): 16 with AVX-512,
// 8 with AVX/AVX2, else 4. InvalidArgument for a malformed target.
Result<int> vector_lanes(const std::string& target);

// Plain C++ reference implementation of a workload (slow, obviously correct), for checking outputs.
Status run_reference(const ir::Workload& w, const std::vector<const HostTensor*>& inputs, HostTensor& output);

}  // namespace tensorperf::kernels
