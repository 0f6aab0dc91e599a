// `tensorperf features`: the features a cost model sees for one program (workload, config) on this
// device: the loop nest's leaves, the pooled vector and the device vector. For debugging, and for
// users who train their own models.
#include <cmath>
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/device_json.h"
#include "cli/exit.h"
#include "cli/table.h"
#include "cli/validators.h"
#include "features/leaf_context.h"
#include "features/leaf_features.h"
#include "features/program_features.h"
#include "ir/workload.h"
#include "kernels/loop_nest.h"
#include "measure/device.h"

namespace tensorperf::cli {
namespace {

struct FeaturesOptions {
  std::string workload;
  std::string config;  // JSON: {"provider", "knobs"} or the knobs alone (then --provider says whose)
  std::string provider = "halide";
  std::string isa = "native";
  int threads = 1;
  bool loops = false;
  bool chained = false;
  bool json = false;
};

kernels::Config parse_config(const FeaturesOptions& o, const ir::Workload& w) {
  auto provider = kernels::find_provider(o.provider);
  if (!provider.ok()) throw CommandFailed("--provider: " + provider.status().message(), kExitUsage);
  if (o.config.empty()) return (*provider)->default_config(w);
  nlohmann::json j = nlohmann::json::parse(o.config, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    throw CommandFailed("--config: not a JSON object (give the knobs, e.g. '{\"vector_width\": 8, ...}', or "
                        "{\"provider\": ..., \"knobs\": {...}})",
                        kExitUsage);
  if (j.contains("knobs")) {
    if (!j["knobs"].is_object() || (j.contains("provider") && !j["provider"].is_string()))
      throw CommandFailed("--config: \"knobs\" must be an object and \"provider\" a string", kExitUsage);
    return kernels::Config{j.value("provider", o.provider), j["knobs"]};
  }
  return kernels::Config{o.provider, j};
}

void run_features(const FeaturesOptions& o) {
  auto w = ir::parse_workload_key(o.workload);
  if (!w.ok()) throw CommandFailed("--workload: " + w.status().message(), kExitUsage);
  const kernels::Config config = parse_config(o, *w);
  measure::DeviceOptions device_options;
  device_options.threads = o.threads;
  device_options.isa = o.isa;
  const measure::Device device = check(measure::detect_device(device_options));
  const features::ProgramFeatures f = check(features::program_features(*w, config, device.target, o.chained));
  std::optional<kernels::LoopNest> nest;
  if (f.kind == features::SampleKind::kLoopNest) nest = check(kernels::lower(*w, config, device.target));

  const std::vector<double> device_vector = device.features();
  if (o.json) {
    nlohmann::json out = features::program_features_to_json(f);
    out["workload"] = w->key();
    out["config"] = {{"provider", config.provider}, {"knobs", config.knobs}};
    out["device"] = device.key();
    out["device_features"] = device_features_json(device_vector);
    out["device_description"] = measure::device_to_json(device);
    if (nest && o.loops) out["loop_nest"] = kernels::loop_nest_to_json(*nest);
    std::puts(out.dump(2).c_str());
    return;
  }
  std::printf("%s  %s %s\nsample kind: %s, %zu leaves, %zu pooled features, device %s\n", w->key().c_str(),
              config.provider.c_str(), config.knobs.dump().c_str(), features::sample_kind_name(f.kind), f.leaves.size(),
              f.pooled.size(), device.key().c_str());
  if (nest && o.loops) std::printf("\n%s", nest->to_string().c_str());
  if (nest) {
    Table table({{"leaf", Align::kRight},
                 {"depth", Align::kRight},
                 {"stores"},
                 {"lanes", Align::kRight},
                 {"unrolled", Align::kRight},
                 {"executions", Align::kRight},
                 {"MFLOP", Align::kRight},
                 {"distinct KiB", Align::kRight},
                 {"flop/byte", Align::kRight}});
    for (const kernels::Leaf& leaf : nest->leaves) {
      features::LeafContext ctx = features::make_leaf_context(*nest, leaf);
      double unique = 0;
      for (const features::BufferTouch& b : ctx.buffers) unique += b.unique_bytes;
      const double flops = features::leaf_flops(ctx);
      table.add_row({std::to_string(leaf.preorder), std::to_string(leaf.depth), leaf.buffer, std::to_string(leaf.lanes),
                     std::to_string(leaf.unrolled), fmt::format("{:.0f}", ctx.executions),
                     fmt::format("{:.3f}", flops / 1e6), fmt::format("{:.1f}", unique / 1024),
                     fmt::format("{:.2f}", unique > 0 ? flops / unique : 0.0)});
    }
    std::puts("");
    table.print();
  }
  // The pooled vector's non-zero entries (log2(1 + x) for counts and sizes).
  std::puts("");
  Table pooled({{"pooled feature"}, {"value", Align::kRight}});
  size_t zeros = 0;
  for (size_t i = 0; i < f.pooled.size(); ++i) {
    if (f.pooled[i] == 0) {
      ++zeros;
      continue;
    }
    pooled.add_row({features::pooled_feature_names()[i], fmt::format("{:.4g}", f.pooled[i])});
  }
  pooled.add_footer({fmt::format("{} more are zero", zeros), ""});
  pooled.print();
  std::puts("");
  Table dev({{"device feature"}, {"value", Align::kRight}});
  for (size_t i = 0; i < device_vector.size(); ++i)
    dev.add_row({measure::device_feature_names()[i], fmt::format("{:.4g}", device_vector[i])});
  dev.print();
}

}  // namespace

void register_features_command(CLI::App& app) {
  static FeaturesOptions o;
  auto* cmd = app.add_subcommand(
      "features", "print the features a cost model sees for one program (workload, config): loop-nest leaves of "
                  "Halide configs (lowered, no machine code), the pooled vector, the device vector");
  cmd->add_option("--workload", o.workload, "workload key (as `tensorperf tasks` lists them)")->required();
  cmd->add_option("--config", o.config,
                  "the config as JSON: the knobs, or {\"provider\": P, \"knobs\": {...}} (default: the provider's "
                  "default config)");
  cmd->add_option("--provider", o.provider, "whose config: halide or onednn")->capture_default_str();
  cmd->add_option("--isa", o.isa, "ISA level to lower for: native, sse41, avx2, avx512")->capture_default_str();
  cmd->add_option("--threads", o.threads, "threads of the device described (its vector's threads column)")
      ->capture_default_str()
      ->check(positive());
  cmd->add_flag("--chained", o.chained,
                "features of the program as a graph chains it: activation input and output in its native layout "
                "(config.chained_io = 1)");
  cmd->add_flag("--loops", o.loops, "also print the lowered loop nest (pseudo-code; with --json: as JSON)");
  cmd->add_flag("--json", o.json,
                "print one JSON object {workload, config, device, kind, pooled: {name: value}, leaves: [{position, "
                "features}], device_features, device_description (this machine's, as a device-<key>.json holds it)}");
  cmd->callback([] { run_features(o); });
}

}  // namespace tensorperf::cli
