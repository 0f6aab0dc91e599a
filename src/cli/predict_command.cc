// `tensorperf predict`: a model's latency on a device from a trained cost model, without running
// it: per operator, the config the executor would choose there, its predicted latency, and the sum.
// The choice follows the executor's with predictions where the executor times: the database's tuned
// or closest device's config unless the default it is held against (runtime::rival_default) is
// predicted faster (with the layout conversions a plain-layout kernel makes a chain do), else the
// default predicted faster.
// `--compare` also runs the model here, predicts the configs that run chose, and prints the error
// per operator and in total. On this machine, predictions made with a described device's vector
// are scaled by its clock over this machine's (one key covers hosts at different clocks). A machine
// whose CPU a device of the model (or of --devices) describes under its key from before keys carried
// the CPU signature is predicted with that device's vector (measure::same_cpu_under_older_key).
// Kernels with a native layout (oneDNN's convolutions) cost less inside a chain of such kernels,
// where the executor skips their layout conversions: an instance whose input and output the chain
// keeps native is predicted as the chained program (features' "config.chained_io"), one with one of
// the two native half-way, the rest as the program alone (runtime/layout_chains.h).
// The layout ops the executor runs as copies (channels-last concats, concats it cannot place in
// their output, transposes; runtime/layout_copies.h) are predicted from the device's measured
// bandwidth and listed beside the kernels.
// Reads from memory (--no-cold-reads: not counted): in a model a convolution or dense layer reads
// its weights from memory, and a kernel reads an activation from memory when more bytes than a
// core's L2 holds were touched since it was written; the profiler found both cached. Their time is
// added to the kernel's prediction (costmodel/weight_stream.h, costmodel/input_reuse.h).
// `--calibration FILE` applies a graph calibration of the device (costmodel/graph_calibration.h,
// `tensorperf calibrate`): each instance's prediction becomes its class's factor times it plus the
// class's added time, and the total is multiplied by the calibration's overhead.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/read_file.h"
#include "cli/command.h"
#include "cli/device_json.h"
#include "cli/exit.h"
#include "cli/model_source.h"
#include "cli/model_timing.h"
#include "cli/table.h"
#include "cli/validators.h"
#include "costmodel/cost_model.h"
#include "costmodel/device_table.h"
#include "costmodel/graph_calibration.h"
#include "costmodel/input_reuse.h"
#include "costmodel/weight_stream.h"
#include "db/content_hash.h"
#include "db/record_store.h"
#include "ir/task_extraction.h"
#include "kernels/onednn/layout_passing_kernel.h"
#include "kernels/provider.h"
#include "measure/device.h"
#include "runtime/config_choice.h"
#include "runtime/layout_chains.h"
#include "runtime/layout_copies.h"

namespace tensorperf::cli {
namespace {

struct PredictOptions {
  ModelSource source;
  std::string device;  // empty: this machine
  std::string devices = "data/measurements";
  bool devices_given = false;  // --devices named on the command line
  std::string cost_model;
  std::string db;
  int threads = 0;
  std::string isa = "native";
  bool compare = false;
  int repeat = 30;
  bool json = false;
  bool clock_scale = true;  // scale predictions for this machine by the described clock over its own
  std::string calibration;  // a graph calibration file (tensorperf calibrate)
  bool cold_reads = true;   // add the time to read weights and long-written activations from memory
};

struct OpPrediction {
  ir::Task task;
  kernels::Config config;
  std::string source;  // tuned, closest, default
  double predicted_s = 0;
  std::optional<double> measured_s;  // per instance, with --compare
  double chained_share = 0;  // the instances' mean share run chained (both ends 1, one end 0.5)
  double alone_s = 0;        // the prediction with every instance run alone (no chains)
  double weights_s = 0;      // of predicted_s: reading the weights from memory
  double cold_inputs_s = 0;  // of predicted_s: reading activations from memory (mean over the instances)
  std::vector<costmodel::InputReuse> reuse;  // every instance's activation inputs
  std::string calibration_class;
  costmodel::CalibrationFit calibration;  // predicted_s includes it
  double uncalibrated_s = 0;
  // Of predicted_s: the layout conversions an element-wise kernel makes inside where it computes in
  // its inputs' layout and a neighbour takes another (runtime::ChainedIo::converted_bytes; mean over
  // the instances).
  double convert_s = 0;
};

// Layout copies of one op kind, size and thread count (runtime/layout_copies.h).
struct CopyPrediction {
  std::string op;     // concat, transpose, ...
  int64_t bytes = 0;  // read plus written, each
  int threads = 1;
  std::vector<std::string> nodes;
  double predicted_s = 0;            // each
  std::optional<double> measured_s;  // each, with --compare
  costmodel::CalibrationFit calibration;  // predicted_s includes it
  double uncalibrated_s = 0;
};

void run_predict(const PredictOptions& o) {
  if (o.cost_model.empty())
    throw CommandFailed("--cost-model FILE is required (train one with `tensorperf eval --save FILE`)", kExitUsage);
  const ir::Graph graph = o.source.load();
  costmodel::DeviceTable trained_on;  // the devices the model learned, with the vectors it learned
  auto model = check(costmodel::load_cost_model(o.cost_model, {}, &trained_on));
  // Which model file predicted, so that a graph calibration is only applied to its own model's
  // predictions.
  const std::string cost_model_id = db::to_hex(db::content_hash(check(read_file(o.cost_model))));
  std::optional<costmodel::GraphCalibration> calibration;
  if (!o.calibration.empty()) {
    // The fits of the calibrated batch nearest this model's come first (a host can run batch 1 and
    // batch 8 of one kind of kernel on opposite sides of their predictions).
    calibration = check(costmodel::GraphCalibration::load(o.calibration)).for_batch(graph.batch());
    if (calibration->cost_model_id() != cost_model_id)
      throw CommandFailed("--calibration " + o.calibration + " was fitted to another cost model's predictions than " +
                              o.cost_model + "'s: calibrate again with this one (tensorperf calibrate)",
                          kExitUsage);
  }
  costmodel::DeviceTable described;  // --devices' descriptions
  if (Status s = described.add_directory(o.devices); !s.ok()) {
    // The default directory may be absent where no dataset was checked out; a named one may not.
    if (o.devices_given) throw CommandFailed("--devices: " + s.message(), exit_code_of(s));
  }

  // The device: this machine, or a described one (the closest described device stands in, flagged).
  // Its vector is the one the model learned for that key where it has one: peaks measured again
  // here differ by 10-20% on shared cores, enough to land on the far side of the model's splits.
  measure::Device device;
  std::string device_note;
  std::string vector_source;  // trained, described, measured
  double here_clock_mhz = 0;  // this machine's clock (/proc/cpuinfo or cpufreq)
  double clock_scale = 1;     // described clock / this machine's: applied to every prediction
  std::string host_key;       // this machine's key (configs are chosen for it, as `run` does)
  if (o.device.empty()) {
    measure::DeviceOptions d;
    d.threads = o.threads > 0 ? o.threads : static_cast<int>(measure::pinned_cpus(1 << 16).size());
    d.isa = o.isa;
    device = check(measure::detect_device(d));
    here_clock_mhz = device.clock_mhz;
    host_key = device.key();
    // One CPU, one vector (DeviceTable::find_for): this CPU under an older key where the model or
    // the descriptions hold one, else this key's own.
    auto use = [&](const measure::Device* t, const char* source) {
      if (t->key() != device.key()) device_note = " (this CPU under its older key " + t->key() + ")";
      device = *t;
      vector_source = source;
    };
    if (const measure::Device* t = trained_on.find_for(device)) {
      use(t, "trained");
    } else if (const measure::Device* t = described.find_for(device)) {
      use(t, "described");
    } else {
      vector_source = "measured";
    }
    // One key covers hosts of one CPU model at different clocks (cloud hosts of one family run at
    // 2.1 and 2.6 GHz): what was learned at the described clock is scaled to this one's.
    if (vector_source != "measured" && o.clock_scale && device.clock_mhz > 0 && here_clock_mhz > 0 &&
        std::abs(device.clock_mhz / here_clock_mhz - 1) > 0.01)
      clock_scale = device.clock_mhz / here_clock_mhz;
  } else {
    if (o.compare) throw CommandFailed("--compare runs the model here: it cannot be combined with --device", kExitUsage);
    costmodel::DeviceTable table = described;
    for (const auto& [key, d] : trained_on.devices()) table.add(d);
    auto closest = table.closest(o.device);
    if (!closest.ok())
      throw CommandFailed("--device " + o.device + ": the cost model names no trained devices and " + o.devices +
                              " has no device descriptions",
                          kExitUsage);
    device = *closest;
    if (device.key() != o.device) device_note = " (not described: using the closest described device " + device.key() + ")";
    vector_source = trained_on.find(device.key()) ? "trained" : "described";
  }
  const std::vector<double> device_vector = device.features();
  const std::string device_key = o.device.empty() ? host_key : o.device;
  if (calibration && calibration->cold_reads() != o.cold_reads)
    throw CommandFailed("--calibration " + o.calibration + " was fitted to predictions " +
                            (calibration->cold_reads() ? "with" : "without") +
                            " the reads from memory: calibrate again, or predict " +
                            (calibration->cold_reads() ? "without --no-cold-reads" : "with --no-cold-reads"),
                        kExitUsage);
  if (calibration && calibration->device() != device_key)
    throw CommandFailed("--calibration " + o.calibration + " is for device " + calibration->device() +
                            ", this prediction for " + device_key + ": calibrate on " + device_key,
                        kExitUsage);

  // With --compare, the run first: the configs it ran (its load-time checks decided some) are the
  // ones to predict.
  std::optional<nlohmann::json> run;
  std::map<std::string, std::pair<kernels::Config, std::string>> run_config;  // workload -> (config, source)
  std::map<std::string, std::pair<double, int>> run_ms;                       // workload -> (ms summed, nodes)
  std::map<std::string, double> run_copy_ms;                                  // layout node -> ms
  if (o.compare) {
    run = run_in_child(o.source, ChildRun{device.threads, o.isa, o.db, o.repeat}, "the comparison run");
    for (const auto& op : run->at("ops")) {
      const std::string w = op.value("workload", "");
      if (op.value("provider", "") == "layout") run_copy_ms[op.value("name", "")] = op.value("ms", 0.0);
      if (w.empty()) continue;
      run_config[w] = {kernels::Config{op.value("provider", ""), op.value("config", nlohmann::json::object())},
                       op.value("source", "default")};
      run_ms[w].first += op.value("ms", 0.0);
      run_ms[w].second += 1;
    }
  }

  std::unique_ptr<db::RecordStore> store;
  if (!o.db.empty()) store = check(db::open_store(o.db, db::OpenMode::kRead));
  // Seconds of (w, c), alone or chained; each program is featurised (a Halide config lowered) once,
  // however often the choice below and the chains ask for it.
  std::map<std::string, double> predicted;
  auto predict_one = [&](const ir::Workload& w, const kernels::Config& c, bool chained) {
    const std::string key = w.key() + "\n" + c.provider + "\n" + c.knobs.dump() + (chained ? "\nchained" : "");
    if (auto it = predicted.find(key); it != predicted.end()) return it->second;
    costmodel::Sample s = check(costmodel::make_sample(w, c, device.target, device_vector, device_key, chained));
    const double seconds = clock_scale * check(model->predict(std::span<const costmodel::Sample>(&s, 1))).at(0);
    predicted.emplace(key, seconds);
    return seconds;
  };
  auto native = [](const ir::Workload& w, const kernels::Config& c) {
    auto p = kernels::find_provider(c.provider);
    return p.ok() && !(*p)->expected_native_layout(w, c).empty();
  };
  std::vector<OpPrediction> ops;
  for (const ir::Task& t : check(ir::extract_tasks(graph))) {
    const ir::Workload& w = t.workload;
    OpPrediction p{t, {}, "default", 0, std::nullopt, 0, 0, 0, 0, {}, "", {}, 0};
    if (auto it = run_config.find(w.key()); it != run_config.end()) {
      p.config = it->second.first;
      p.source = it->second.second;
    } else {
      // The executor's choice, with predictions where it times (runtime/executor.cc): a stored config
      // runs only where it beats the default it is held against (runtime::rival_default: oneDNN's
      // where oneDNN runs the workload, else its provider's own), a plain-layout kernel also paying
      // for the layout conversions it makes a chain of native kernels do; without a stored config,
      // the faster default on the same terms.
      std::optional<runtime::ChosenConfig> chosen;
      if (store) chosen = check(runtime::database_config(*store, w, device_key, device.target));
      auto onednn = kernels::find_provider("onednn");
      const bool has_onednn = onednn.ok() && (*onednn)->supports(w);
      std::optional<kernels::Config> fallback;
      if (has_onednn) fallback = (*onednn)->default_config(w);
      // What `c` costs against oneDNN's default: its prediction, plus the conversions where it breaks
      // the default's chain.
      auto charged = [&](const kernels::Config& c) {
        double s = predict_one(w, c, false);
        if (fallback && !native(w, c) && native(w, *fallback))
          s += std::max(0.0, predict_one(w, *fallback, false) - predict_one(w, *fallback, true));
        return s;
      };
      auto fallback_s = [&] { return predict_one(w, *fallback, native(w, *fallback)); };
      if (chosen) {
        p.config = chosen->config;
        p.source = chosen->source == runtime::ConfigSource::kTuned ? "tuned" : "closest";
        if (const std::optional<kernels::Config> rival = runtime::rival_default(w, chosen->config);
            rival && predict_one(w, *rival, native(w, *rival)) < charged(chosen->config)) {
          p.config = *rival;
          p.source = "default";
        }
      } else {
        auto halide = kernels::find_provider("halide");
        const bool has_halide = halide.ok() && (*halide)->supports(w);
        if (!has_onednn && !has_halide)
          throw CommandFailed("no provider has a kernel for " + w.key(), kExitUnsupported);
        if (!has_halide) {
          p.config = *fallback;
        } else {
          const kernels::Config h = (*halide)->default_config(w);
          p.config = !has_onednn || charged(h) < fallback_s() ? h : *fallback;
        }
      }
    }
    p.predicted_s = predict_one(w, p.config, false);
    if (auto it = run_ms.find(w.key()); it != run_ms.end()) p.measured_s = it->second.first / 1e3 / it->second.second;
    ops.push_back(std::move(p));
  }
  // Chains: which instances' activations stay in their kernel's native layout; the layout copies.
  std::vector<CopyPrediction> copies;
  {
    std::map<std::string, size_t> op_of;  // workload key -> ops index
    for (size_t i = 0; i < ops.size(); ++i) op_of[ops[i].task.workload.key()] = i;
    const auto fused = check(ir::fuse_graph(graph));
    {
      const auto reuse = check(costmodel::input_reuse(graph, fused));
      for (size_t k = 0; k < fused.size(); ++k)
        if (auto it = op_of.find(fused[k].second.key()); it != op_of.end())
          ops[it->second].reuse.insert(ops[it->second].reuse.end(), reuse[k].begin(), reuse[k].end());
    }
    std::vector<std::string> layouts;
    for (const auto& [f, w] : fused) {
      std::string layout;
      if (auto it = op_of.find(w.key()); it != op_of.end()) {
        const kernels::Config& c = ops[it->second].config;
        if (auto p = kernels::find_provider(c.provider); p.ok()) layout = (*p)->expected_native_layout(w, c);
      }
      layouts.push_back(std::move(layout));
    }
    std::vector<ir::NodeId> channels_last;
    const std::vector<runtime::ChainedIo> chained = runtime::estimate_chained_io(graph, fused, layouts, &channels_last);
    std::map<std::tuple<std::string, int64_t, int>, size_t> copy_of;  // (op, bytes, threads) -> copies index
    for (const runtime::LayoutCopy& c : runtime::estimate_layout_copies(graph, fused, channels_last)) {
      const ir::Node& n = graph.node(c.node);
      const int threads = c.channels_last ? device.threads : 1;
      const std::tuple<std::string, int64_t, int> key{std::string(ir::op_name(n.op)), c.bytes, threads};
      auto [it, added] = copy_of.emplace(key, copies.size());
      if (added) {
        copies.push_back({std::get<0>(key), c.bytes, threads, {}, 0, std::nullopt, {}, 0});
        copies.back().predicted_s = clock_scale * runtime::copy_seconds(c.bytes, device.mem_bandwidth_gbs);
      }
      copies[it->second].nodes.push_back(n.name);
    }
    if (run)
      for (CopyPrediction& c : copies) {
        double ms = 0;
        int found = 0;
        for (const std::string& n : c.nodes)
          if (auto it = run_copy_ms.find(n); it != run_copy_ms.end()) {
            ms += it->second;
            ++found;
          }
        // A copy the run did not make (it placed the concat in its output) measured nothing.
        c.measured_s = found ? ms / 1e3 / found : 0.0;
      }
    std::vector<double> share(ops.size(), 0.0);
    std::vector<int64_t> converted(ops.size(), 0);
    for (size_t k = 0; k < fused.size(); ++k)
      if (auto it = op_of.find(fused[k].second.key()); it != op_of.end()) converted[it->second] += chained[k].converted_bytes;
    for (size_t i = 0; i < ops.size(); ++i) {
      // A oneDNN reorder reads and writes each converted tensor once.
      ops[i].convert_s = clock_scale * runtime::copy_seconds(2 * converted[i], device.mem_bandwidth_gbs) /
                         static_cast<double>(std::max<int64_t>(ops[i].task.count, 1));
    }
    for (size_t k = 0; k < fused.size(); ++k) {
      // An element-wise plain kernel that passes its inputs' layout through costs what it costs in
      // plain tensors (it computes the same elements in another order): no chained prediction.
      if (layouts[k].empty() && kernels::onednn::passes_layouts_through(fused[k].second)) continue;
      if (auto it = op_of.find(fused[k].second.key()); it != op_of.end())
        share[it->second] += 0.5 * (chained[k].input + chained[k].output);
    }
    for (size_t i = 0; i < ops.size(); ++i) {
      OpPrediction& p = ops[i];
      p.alone_s = p.predicted_s;
      p.chained_share = share[i] / static_cast<double>(std::max<int64_t>(p.task.count, 1));
      if (p.chained_share <= 0) continue;
      const double chained_s = predict_one(p.task.workload, p.config, /*chained=*/true);
      p.predicted_s = (1 - p.chained_share) * p.predicted_s + p.chained_share * chained_s;
    }
    for (OpPrediction& p : ops) p.predicted_s += p.convert_s;  // not in alone_s: alone, nothing converts
  }
  // Reads from memory in the model: the weights, on top of the kernel's prediction or as the
  // kernel's time where it is no more than a stream of them; then the activations written more
  // than a core's L2 ago.
  if (o.cold_reads)
    for (OpPrediction& p : ops) {
      const ir::Workload& w = p.task.workload;
      p.weights_s = costmodel::streamed_weights_seconds(w, p.predicted_s, device.peak_gflops, device.mem_bandwidth_gbs);
      p.alone_s += costmodel::streamed_weights_seconds(w, p.alone_s, device.peak_gflops, device.mem_bandwidth_gbs);
      p.cold_inputs_s =
          costmodel::cold_input_seconds(p.reuse, static_cast<double>(device.l2_bytes), device.mem_bandwidth_gbs) /
          static_cast<double>(std::max<int64_t>(p.task.count, 1));
      p.predicted_s += p.weights_s + p.cold_inputs_s;
      p.alone_s += p.cold_inputs_s;
    }
  // Classes, and the calibration's fits: the predictions so far are the uncalibrated ones.
  for (OpPrediction& p : ops) {
    p.calibration_class = costmodel::calibration_class(p.task.workload, p.chained_share);
    p.uncalibrated_s = p.predicted_s;
  }
  for (CopyPrediction& c : copies) c.uncalibrated_s = c.predicted_s;
  if (calibration) {
    for (OpPrediction& p : ops) {
      if (const costmodel::CalibrationFit* f = calibration->fit_for(p.calibration_class)) p.calibration = *f;
      p.predicted_s = p.calibration.seconds(p.predicted_s);
    }
    for (CopyPrediction& c : copies) {
      if (const costmodel::CalibrationFit* f = calibration->fit_for(costmodel::copy_class(c.op))) c.calibration = *f;
      c.predicted_s = c.calibration.seconds(c.predicted_s);
    }
  }
  double total = 0, measured_total = 0, alone_total = 0, copies_total = 0, measured_copies = 0, uncalibrated = 0,
         weights_total = 0, cold_inputs_total = 0, convert_total = 0;
  for (const OpPrediction& p : ops) {
    convert_total += p.convert_s * static_cast<double>(p.task.count);
    total += p.predicted_s * static_cast<double>(p.task.count);
    weights_total += p.weights_s * static_cast<double>(p.task.count);
    cold_inputs_total += p.cold_inputs_s * static_cast<double>(p.task.count);
    uncalibrated += p.uncalibrated_s * static_cast<double>(p.task.count);
    alone_total += p.alone_s * static_cast<double>(p.task.count);
    if (p.measured_s) measured_total += *p.measured_s * static_cast<double>(p.task.count);
  }
  for (const CopyPrediction& c : copies) {
    copies_total += c.predicted_s * static_cast<double>(c.nodes.size());
    uncalibrated += c.uncalibrated_s * static_cast<double>(c.nodes.size());
  }
  total += copies_total;
  alone_total += copies_total;
  if (calibration) total *= calibration->overhead();
  for (const auto& [name, ms] : run_copy_ms) measured_copies += ms / 1e3;  // every copy the run made
  const double run_p50_s = run ? run->at("latency_ms").at("p50").get<double>() / 1e3 : 0;

  if (o.json) {
    nlohmann::json out{{"model", o.source.name()},
                       {"batch", graph.batch()},
                       {"device", device_key},
                       {"described_by", device.key()},
                       {"device_vector", vector_source},
                       {"device_features", device_features_json(device_vector)},
                       {"cost_model", model->kind()},
                       {"cost_model_id", cost_model_id},
                       {"clock_scale", clock_scale},
                       {"predicted_ms", total * 1e3},
                       {"predicted_alone_ms", alone_total * 1e3},
                       {"predicted_copies_ms", copies_total * 1e3},
                       {"predicted_uncalibrated_ms", uncalibrated * 1e3},
                       {"cold_reads", o.cold_reads},
                       {"predicted_weights_ms", weights_total * 1e3},
                       {"predicted_cold_inputs_ms", cold_inputs_total * 1e3},
                       {"predicted_conversions_ms", convert_total * 1e3},
                       {"ops", nlohmann::json::array()},
                       {"copies", nlohmann::json::array()}};
    for (const OpPrediction& p : ops) {
      nlohmann::json op{{"workload", p.task.workload.key()}, {"count", p.task.count},
                        {"provider", p.config.provider},     {"source", p.source},
                        {"config", p.config.knobs},          {"predicted_ms", p.predicted_s * 1e3},
                        {"chained_share", p.chained_share},  {"predicted_alone_ms", p.alone_s * 1e3},
                        {"weights_ms", p.weights_s * 1e3},   {"cold_inputs_ms", p.cold_inputs_s * 1e3},
                        {"convert_ms", p.convert_s * 1e3},   {"class", p.calibration_class}};
      if (calibration) {
        op["calibration_factor"] = p.calibration.factor;
        op["calibration_added_ms"] = p.calibration.added_s * 1e3;
        op["predicted_uncalibrated_ms"] = p.uncalibrated_s * 1e3;
      }
      if (p.measured_s) op["measured_ms"] = *p.measured_s * 1e3;
      out["ops"].push_back(op);
    }
    for (const CopyPrediction& c : copies) {
      nlohmann::json copy{{"op", c.op},           {"count", c.nodes.size()}, {"bytes", c.bytes},
                          {"threads", c.threads}, {"nodes", c.nodes},        {"predicted_ms", c.predicted_s * 1e3}};
      if (calibration) {
        copy["calibration_factor"] = c.calibration.factor;
        copy["calibration_added_ms"] = c.calibration.added_s * 1e3;
        copy["predicted_uncalibrated_ms"] = c.uncalibrated_s * 1e3;
      }
      if (c.measured_s) copy["measured_ms"] = *c.measured_s * 1e3;
      out["copies"].push_back(copy);
    }
    if (calibration)
      out["calibration"] = {
          {"file", o.calibration}, {"overhead", calibration->overhead()}, {"models", calibration->models()},
          {"batch", calibration->batch()}};
    if (run) {
      out["measured_ms"] = run_p50_s * 1e3;
      out["measured_kernels_ms"] = measured_total * 1e3;
      out["measured_copies_ms"] = measured_copies * 1e3;
      out["error"] = (total - run_p50_s) / run_p50_s;
    }
    std::puts(out.dump(2).c_str());
    return;
  }
  std::printf("%s at batch %lld on %s%s, cost model %s, device vector %s\n\n", o.source.name().c_str(),
              static_cast<long long>(graph.batch()), device_key.c_str(), device_note.c_str(), model->kind().c_str(),
              vector_source == "trained"     ? "as trained"
              : vector_source == "described" ? ("from " + o.devices).c_str()
                                             : "measured here");
  if (clock_scale != 1)
    std::printf("clock: %.0f MHz described, %.0f MHz here: predictions scaled by %.3f (--no-clock-scale: not)\n\n",
                device.clock_mhz, here_clock_mhz, clock_scale);
  if (calibration)
    std::printf("calibration: %s (fitted on %zu runs here%s), graph overhead %.3f; uncalibrated total %.3f ms\n\n",
                o.calibration.c_str(), calibration->models().size(),
                calibration->batch() ? fmt::format("; batch {}'s fits first", calibration->batch()).c_str() : "",
                calibration->overhead(), uncalibrated * 1e3);
  std::vector<Table::Column> columns = {{"#", Align::kRight}, {"op"},         {"count", Align::kRight}, {"provider"},
                                 {"config"},           {"chained", Align::kRight}, {"ms each", Align::kRight}, {"ms total", Align::kRight},
                                 {"share", Align::kRight}};
  if (calibration) columns.insert(columns.begin() + 6, {"calibration", Align::kRight});
  if (run) {
    columns.push_back({"measured ms", Align::kRight});
    columns.push_back({"error", Align::kRight});
  }
  Table table(columns);
  for (size_t i = 0; i < ops.size(); ++i) {
    const OpPrediction& p = ops[i];
    std::vector<std::string> row = {std::to_string(i + 1), std::string(ir::op_name(p.task.workload.op)),
                                    std::to_string(p.task.count), p.config.provider, p.source,
                                    p.chained_share > 0 ? fmt::format("{:.2f}", p.chained_share) : "-",
                                    fmt::format("{:.3f}", p.predicted_s * 1e3),
                                    fmt::format("{:.3f}", p.predicted_s * 1e3 * static_cast<double>(p.task.count)),
                                    fmt::format("{:.1f}%", 100 * p.predicted_s * static_cast<double>(p.task.count) / total)};
    if (calibration)
      row.insert(row.begin() + 6, fmt::format("{} x{:.2f} +{:.0f}us", p.calibration_class, p.calibration.factor,
                                              p.calibration.added_s * 1e6));
    if (run)
      row.insert(row.end(), {p.measured_s ? fmt::format("{:.3f}", *p.measured_s * 1e3) : "-",
                             p.measured_s ? fmt::format("{:+.1f}%", 100 * (p.predicted_s - *p.measured_s) / *p.measured_s)
                                          : "-"});
    table.add_row(row);
  }
  for (size_t i = 0; i < copies.size(); ++i) {
    const CopyPrediction& c = copies[i];
    const double n = static_cast<double>(c.nodes.size());
    std::vector<std::string> row = {std::to_string(ops.size() + i + 1),
                                    c.op,
                                    std::to_string(c.nodes.size()),
                                    "layout",
                                    fmt::format("copy {:.1f} MB, {} thread{}", static_cast<double>(c.bytes) / 1e6,
                                                c.threads, c.threads == 1 ? "" : "s"),
                                    "-",
                                    fmt::format("{:.3f}", c.predicted_s * 1e3),
                                    fmt::format("{:.3f}", c.predicted_s * 1e3 * n),
                                    fmt::format("{:.1f}%", 100 * c.predicted_s * n / total)};
    if (calibration)
      row.insert(row.begin() + 6, fmt::format("{} x{:.2f} +{:.0f}us", costmodel::copy_class(c.op), c.calibration.factor,
                                              c.calibration.added_s * 1e6));
    if (run)
      row.insert(
          row.end(),
          {fmt::format("{:.3f}", *c.measured_s * 1e3),
           *c.measured_s > 0 ? fmt::format("{:+.1f}%", 100 * (c.predicted_s - *c.measured_s) / *c.measured_s) : "-"});
    table.add_row(row);
  }
  std::vector<std::string> footer = {"", "total", "", "", "", "", "", fmt::format("{:.3f}", total * 1e3), "100.0%"};
  if (calibration) footer.insert(footer.begin() + 6, fmt::format("overhead x{:.2f}", calibration->overhead()));
  if (run)
    footer.insert(footer.end(), {fmt::format("{:.3f}", run_p50_s * 1e3),
                                 fmt::format("{:+.1f}%", 100 * (total - run_p50_s) / run_p50_s)});
  table.add_footer(footer);
  table.print();
  if (o.cold_reads)
    std::printf(
        "\nreads from memory, in the kernels' uncalibrated predictions: weights %.3f ms, activations %.3f ms "
        "(--no-cold-reads: not counted)\n",
        weights_total * 1e3, cold_inputs_total * 1e3);
  if (convert_total > 0)
    std::printf(
        "layout conversions inside element-wise kernels (computing in a neighbour's layout, writing or reading "
        "plain for another), in their uncalibrated predictions: %.3f ms\n",
        convert_total * 1e3);
  if (run)
    std::printf(
        "\nmeasured: whole run p50 %.3f ms (its kernels %.3f ms, its layout copies %.3f ms); predicted: the "
        "kernels' and copies' sum\n",
        run_p50_s * 1e3, measured_total * 1e3, measured_copies * 1e3);
}

}  // namespace

void register_predict_command(CLI::App& app) {
  static PredictOptions o;
  auto* cmd = app.add_subcommand("predict", "predict a model's latency per operator on a device from a trained cost "
                                            "model, without running it (--compare: run it here too)");
  o.source.add_options(cmd, "--graph-seed");
  cmd->add_option("--cost-model", o.cost_model, "a model file (`tensorperf eval --save FILE`)")->required();
  cmd->add_option("--device", o.device, "device key to predict for (default: this machine)");
  cmd->add_option("--devices", o.devices,
                  "directory of device-<key>.json descriptions: --device's, and this machine's vector when the cost "
                  "model was not trained on it (else its peaks are measured here)")
      ->capture_default_str();
  cmd->add_option("--db", o.db, "the database whose tuned configs the executor would use (default: none, defaults)");
  cmd->add_option("--threads", o.threads, "threads per kernel on this machine (default: every CPU available)")
      ->check(positive());
  cmd->add_option("--isa", o.isa, "ISA level on this machine: native, sse41, avx2, avx512")->capture_default_str();
  cmd->add_flag("--compare", o.compare, "also run the model here (tensorperf run) and print the errors");
  cmd->add_flag("--clock-scale,!--no-clock-scale", o.clock_scale,
                "on this machine: scale predictions by the described device's clock over this machine's, where "
                "they differ (one device key covers hosts of one CPU model at different clocks)")
      ->capture_default_str();
  cmd->add_option("--calibration", o.calibration,
                  "a graph calibration of this device and cost model (`tensorperf calibrate -o FILE`): each "
                  "instance's prediction times its class's factor plus its added time, the total times the graph "
                  "overhead; where it has fits per batch size, those of the batch nearest --batch come first")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--cold-reads,!--no-cold-reads", o.cold_reads,
                "add to each kernel's prediction the time to read from memory what it reads there in a model and "
                "the profiler found cached: a convolution's or dense layer's weights, and activations written more "
                "than a core's L2 ago")
      ->capture_default_str();
  cmd->add_option("--repeat", o.repeat, "with --compare: whole runs timed")->capture_default_str()->check(positive());
  cmd->add_flag("--json", o.json,
                "print one JSON object {model, batch, device, described_by, device_vector (trained, described or "
                "measured), device_features, cost_model, cost_model_id, clock_scale, predicted_ms, predicted_alone_ms, "
                "predicted_copies_ms, predicted_uncalibrated_ms, cold_reads, predicted_weights_ms, "
                "predicted_cold_inputs_ms, predicted_conversions_ms, ops: [{workload, "
                "count, provider, source, config, predicted_ms, chained_share, predicted_alone_ms, weights_ms, "
                "cold_inputs_ms, convert_ms, class, "
                "calibration_factor?, calibration_added_ms?, "
                "predicted_uncalibrated_ms?, "
                "measured_ms?}], copies: [{op, count, bytes, threads, nodes, predicted_ms, calibration_factor?, "
                "calibration_added_ms?, "
                "predicted_uncalibrated_ms?, measured_ms?}], calibration?: {file, overhead, models}, measured_ms?, "
                "measured_kernels_ms?, measured_copies_ms?, error?}");
  cmd->callback([cmd] {
    o.devices_given = cmd->count("--devices") > 0;
    run_predict(o);
  });
}

}  // namespace tensorperf::cli
