#include "kernels/autoschedule.h"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <mutex>
#include <set>

#include "kernels/halide/halide_template.h"

namespace tensorperf::kernels {
namespace {

constexpr const char* kPluginDir = "/usr/lib/x86_64-linux-gnu/halide14";

Status load_plugin_once(const std::string& name) {
  static std::mutex mu;
  static std::set<std::string> loaded;
  std::lock_guard<std::mutex> lock(mu);
  if (loaded.count(name)) return Status::Ok();
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string path = std::string(kPluginDir) + "/libautoschedule_" + lower + ".so";
  if (!std::filesystem::exists(path))
    return Status::NotFound("autoscheduler plugin " + path + " is missing: install libhalide14-0-dev");
  try {
    Halide::load_plugin(path);
  } catch (const Halide::Error& e) {
    return Status::Internal("loading " + path + " failed: " + e.what());
  }
  loaded.insert(name);
  return Status::Ok();
}

int64_t detect_llc_bytes() {
  for (int which : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
    long v = sysconf(which);
    if (v > 0) return v;
  }
  return int64_t{32} << 20;
}

Halide::Region full_region(const std::vector<int>& sizes) {
  Halide::Region r;
  for (int s : sizes) r.emplace_back(0, s);
  return r;
}

}  // namespace

const std::vector<std::string>& autoscheduler_names() {
  static const std::vector<std::string> names = {"Mullapudi2016", "Li2018", "Adams2019"};
  return names;
}

Result<std::unique_ptr<Kernel>> compile_autoscheduled(const ir::Workload& w, const std::string& autoscheduler,
                                                      const CompileOptions& options,
                                                      const AutoscheduleOptions& auto_options) {
  const auto& names = autoscheduler_names();
  if (std::find(names.begin(), names.end(), autoscheduler) == names.end())
    return Status::NotFound("no autoscheduler named '" + autoscheduler + "' (Mullapudi2016, Li2018, Adams2019)");
  const halide::OpTemplate* t = halide::find_template(w.op);
  if (t == nullptr) return Status::Unsupported("no Halide algorithm for op '" + std::string(ir::op_name(w.op)) + "'");
  TP_RETURN_IF_ERROR(load_plugin_once(autoscheduler));
  // The plugin reads HL_BEAM_SIZE per call; a beam the environment set at the first call is kept.
  static const bool beam_from_environment = getenv("HL_BEAM_SIZE") != nullptr;
  if (autoscheduler == "Adams2019" && !beam_from_environment) setenv("HL_BEAM_SIZE", "1", /*overwrite=*/1);

  // The algorithm with estimates on every input and the output at their (viewed) sizes.
  auto build = [&]() -> Result<halide::Program> {
    nlohmann::json knobs = t->default_knobs(w);
    try {
      TP_ASSIGN_OR_RETURN(halide::Program program, t->build(w, halide::Knobs(knobs, /*schedule=*/false)));
      for (size_t i = 0; i < program.inputs.size(); ++i) {
        TP_ASSIGN_OR_RETURN(std::vector<int> sizes, halide::input_sizes(program, w, i));
        program.inputs[i].set_estimates(full_region(sizes));
      }
      program.output.set_estimates(full_region(halide::output_sizes(program, w)));
      return program;
    } catch (const Halide::Error& e) {
      return Status::Internal(std::string("building the algorithm failed: ") + e.what());
    }
  };
  const int64_t llc =
      auto_options.last_level_cache_bytes > 0 ? auto_options.last_level_cache_bytes : detect_llc_bytes();
  Halide::MachineParams params(options.threads, static_cast<uint64_t>(llc), auto_options.balance);
  auto schedule_and_compile = [&]() -> Result<std::unique_ptr<Kernel>> {
    TP_ASSIGN_OR_RETURN(halide::Program program, build());
    return halide::compile_program(std::move(program), options, [&](Halide::Pipeline& p, const Halide::Target& target) {
      p.auto_schedule(autoscheduler, target, params);
    });
  };
  Result<std::unique_ptr<Kernel>> kernel = schedule_and_compile();
  // Adams2019's greedy pass can leave a schedule that Halide 14 itself cannot compile ("Symbol not
  // found: conv$2.s1.ox.ox", a 3x3 convolution at AVX2's 8 lanes); a wider beam finds another. Its
  // HL_NO_SUBTILING, which also avoids it, is read once per process, so it cannot be a retry.
  if (!kernel.ok() && autoscheduler == "Adams2019" && !beam_from_environment) {
    for (const char* beam : {"4", "8"}) {
      setenv("HL_BEAM_SIZE", beam, /*overwrite=*/1);
      Result<std::unique_ptr<Kernel>> retried = schedule_and_compile();
      setenv("HL_BEAM_SIZE", "1", /*overwrite=*/1);
      if (retried.ok()) return retried;
    }
    return kernel.status().WithContext("Adams2019, at beams of 1, 4 and 8");
  }
  return kernel;
}

}  // namespace tensorperf::kernels
