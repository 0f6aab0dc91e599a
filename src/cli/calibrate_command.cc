// `tensorperf calibrate`: fits a device's graph calibration (costmodel/graph_calibration.h) from
// `tensorperf predict --compare --json` outputs of some models run on it: per class of operator, an
// instance's time in the run as a factor times its prediction plus a fixed added time;
// `predict --calibration FILE` applies it to the predictions of other models.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/read_file.h"
#include "cli/command.h"
#include "cli/exit.h"
#include "cli/table.h"
#include "cli/validators.h"
#include "costmodel/graph_calibration.h"

namespace tensorperf::cli {
namespace {

struct CalibrateOptions {
  std::vector<std::string> files;
  std::string output;
  int min_models = 2;
  bool json = false;
};

void run_calibrate(const CalibrateOptions& o) {
  std::vector<costmodel::GraphComparison> comparisons;
  for (const std::string& f : o.files) {
    nlohmann::json j = nlohmann::json::parse(check(read_file(f)), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded())
      throw CommandFailed(f + " is not JSON (expected the output of `tensorperf predict --compare --json`)");
    comparisons.push_back(check(costmodel::comparison_from_predict_json(j, f)));
  }
  const costmodel::GraphCalibration cal = check(costmodel::GraphCalibration::fit(comparisons, o.min_models));
  if (!o.output.empty()) check(cal.save(o.output));
  if (o.json) {
    std::puts(cal.to_json().dump(2).c_str());
    return;
  }
  std::printf("graph calibration of %s from %zu runs (%s)\n\n", cal.device().c_str(), comparisons.size(),
              fmt::format("{}", fmt::join(cal.models(), ", ")).c_str());
  Table table({{"batch"},
               {"class"},
               {"factor", Align::kRight},
               {"added us", Align::kRight},
               {"runs", Align::kRight},
               {"instances", Align::kRight}});
  auto add = [&](const std::string& batch, const std::map<std::string, costmodel::CalibrationFit>& fits) {
    for (const auto& [cls, f] : fits)
      table.add_row({batch, cls, fmt::format("{:.3f}", f.factor), fmt::format("{:.1f}", f.added_s * 1e6),
                     std::to_string(f.models), std::to_string(f.instances)});
  };
  add("all", cal.fits());
  for (const auto& [b, f] : cal.batch_fits()) add(std::to_string(b), f.fits);
  table.print();
  std::printf(
      "\nan instance's time in a graph: factor x its prediction + added; graph overhead (whole run / its "
      "kernels and copies): %.3f",
      cal.overhead());
  for (const auto& [b, f] : cal.batch_fits()) std::printf(", batch %lld's %.3f", static_cast<long long>(b), f.overhead);
  std::printf("\n");
  if (!cal.batch_fits().empty())
    std::printf(
        "a model at another batch takes the fits of the batch nearest its own first (predict --batch), then "
        "those of all runs\n");
  std::printf(
      "classes in fewer than %d runs fall back to a broader class (chained -> alone, pool -> elementwise, "
      "depthwise and conv-lean -> conv, then all, as gemm does; a copy op -> every copy)\n",
      o.min_models);
  if (!o.output.empty())
    std::printf("written to %s (tensorperf predict --calibration %s)\n", o.output.c_str(), o.output.c_str());
}

}  // namespace

void register_calibrate_command(CLI::App& app) {
  static CalibrateOptions o;
  auto* cmd = app.add_subcommand(
      "calibrate",
      "fit a device's graph calibration from `tensorperf predict --compare --json` outputs: per class of operator, "
      "an instance's time in a run as factor x prediction + added time (predict --calibration applies it to other "
      "models)");
  cmd->add_option("files", o.files,
                  "outputs of `tensorperf predict --model M --compare --json` on this device, one cost model")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", o.output, "write the calibration to FILE (JSON)");
  cmd->add_option("--min-models", o.min_models, "runs a class needs for a fit of its own (else a broader class's)")
      ->capture_default_str()
      ->check(positive());
  cmd->add_flag("--json", o.json,
                "print the calibration {format, version, device, cost_model_id, overhead, runs, fits: {class: {factor, "
                "added_s, models, instances}}, batches: {N: {overhead, runs, fits}}, models}");
  cmd->callback([] { run_calibrate(o); });
}

}  // namespace tensorperf::cli
