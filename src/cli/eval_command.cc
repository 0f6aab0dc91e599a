// `tensorperf eval`: how well a cost model predicts the measured records of a database: random,
// cross-model, cross-device and cross-CPU splits (CDMPP's protocol), with errors, rankings and top-k scores.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "cli/command.h"
#include "cli/exit.h"
#include "cli/progress.h"
#include "cli/table.h"
#include "cli/validators.h"
#include "costmodel/cost_model.h"
#include "costmodel/device_table.h"
#include "costmodel/metrics.h"
#include "costmodel/noise_floor.h"
#include "costmodel/record_samples.h"
#include "costmodel/splits.h"
#include "db/record_store.h"
#include "features/feature_cache.h"
#include "ir/models/zoo.h"
#include "ir/task_extraction.h"

namespace tensorperf::cli {
namespace {

struct EvalOptions {
  std::string db = "tensorperf.db";
  std::string devices = "data/measurements";
  std::vector<std::string> cost_models = {"xgb"};
  std::vector<std::string> split = {"all"};
  std::vector<std::string> networks;  // cross-model: hold out only these (empty: every zoo network)
  std::vector<std::string> held_out_devices;  // cross-device, cross-cpu: hold out only these (empty: each)
  std::vector<double> shares = {1, 5, 10};
  size_t max_samples = 0;
  bool every_session = false;  // keep the records of every session that measured a program
  std::string feature_cache;   // empty: features::default_feature_cache_path(); "off": none
  int threads = 1;
  uint64_t seed = 0;
  int epochs = 0;
  std::string save;
  std::string plot_spec;
  std::string predictions;
  bool joint = false;
  double cmd = 0;
  bool json = false;
};

// The zoo's networks and their workloads at the batch sizes the dataset measures (1 and 8).
std::map<std::string, std::set<std::string>> zoo_workloads() {
  std::map<std::string, std::set<std::string>> out;
  for (const ir::ModelInfo& m : ir::zoo_models())
    for (int64_t batch : {1, 8}) {
      ir::ModelOptions options;
      options.batch = batch;
      auto g = ir::build_model(m.name, options);
      if (!g.ok()) continue;
      auto tasks = ir::extract_tasks(*g);
      if (!tasks.ok()) continue;
      for (const ir::Task& t : *tasks) out[m.name].insert(t.workload.key());
    }
  return out;
}

struct SplitResult {
  std::string model;
  costmodel::Split split;
  costmodel::Metrics metrics;
  std::vector<double> predicted, measured;
  // The test samples whose inputs were measured more than once (costmodel/noise_floor.h): the
  // floor's metrics on them, and the model's on the same samples.
  costmodel::Metrics floor, model_on_floor;
  // Splits with a fine-tuning share: the pre-trained model's metrics on the same test samples, before
  // it saw the share (what fine-tuning bought, or cost).
  std::optional<costmodel::Metrics> pretrained;
};

// Models trained on a split's `train` set, kept for the splits that share it (a cross-device
// split's pre-training serves every share and selection of that device).
using Pretrained = std::map<std::pair<std::string, std::vector<size_t>>, std::unique_ptr<costmodel::CostModel>>;

SplitResult run_split(const EvalOptions& o, const std::string& model_name,
                      const std::vector<costmodel::Sample>& samples, const costmodel::RepeatIndex& repeats,
                      costmodel::Split split, Pretrained& pretrained) {
  auto pick = [&](const std::vector<size_t>& rows) {
    std::vector<costmodel::Sample> out;
    out.reserve(rows.size());
    for (size_t i : rows) out.push_back(samples[i]);
    return out;
  };
  const costmodel::CostModelOptions mo{o.threads, o.seed, o.epochs, o.cmd};
  std::unique_ptr<costmodel::CostModel> model;
  if (o.joint && !split.fine_tune.empty()) {
    // The held-out device's chosen samples join the training set; one model from scratch.
    split.train.insert(split.train.end(), split.fine_tune.begin(), split.fine_tune.end());
    std::sort(split.train.begin(), split.train.end());
    split.fine_tune.clear();
    split.name += " joint";
  }
  // With --cmd, held-out programs (unmeasured as far as training goes) are the regulariser's target:
  // the held-out network's, or the held-out device's (the same for every share of it).
  std::vector<costmodel::Sample> unlabeled;
  std::vector<size_t> unlabeled_rows;
  if (o.cmd > 0 && split.name != "random") {
    unlabeled_rows = split.test;
    unlabeled_rows.insert(unlabeled_rows.end(), split.fine_tune.begin(), split.fine_tune.end());
    std::sort(unlabeled_rows.begin(), unlabeled_rows.end());
    unlabeled = pick(unlabeled_rows);
  }
  std::vector<size_t> pretraining_key;
  if (split.fine_tune.empty()) {
    model = check(costmodel::make_cost_model(model_name, mo));
    check(model->fit_adapted(pick(split.train), unlabeled));
  } else {
    // The pre-training depends on its training set and, with --cmd, on the regulariser's target
    // (the devices of one CPU share a training set in cross-cpu splits, not their held-out programs).
    pretraining_key = split.train;
    if (!unlabeled_rows.empty()) {
      pretraining_key.push_back(std::numeric_limits<size_t>::max());
      pretraining_key.insert(pretraining_key.end(), unlabeled_rows.begin(), unlabeled_rows.end());
    }
    auto& base = pretrained[{model_name, pretraining_key}];
    if (!base) {
      base = check(costmodel::make_cost_model(model_name, mo));
      check(base->fit_adapted(pick(split.train), unlabeled));
    }
    model = check(costmodel::copy_cost_model(*base, mo));
    check(model->fine_tune(pick(split.fine_tune)));
  }
  const std::vector<costmodel::Sample> test = pick(split.test);
  std::vector<double> predicted = check(model->predict(test));
  std::vector<double> measured;
  std::vector<std::string> groups;
  for (const costmodel::Sample& s : test) {
    measured.push_back(s.seconds);
    groups.push_back(s.workload + "@" + s.device_key);
  }
  costmodel::Metrics m = costmodel::evaluate(predicted, measured, groups);
  std::optional<costmodel::Metrics> before;
  if (!split.fine_tune.empty())
    before = costmodel::evaluate(check(pretrained.at({model_name, pretraining_key})->predict(test)), measured, groups);
  const costmodel::NoiseFloor nf = repeats.floor(split.test);
  std::vector<double> floor_predicted = nf.predicted, floor_measured, model_predicted;
  std::vector<std::string> floor_groups;
  for (size_t p : nf.positions) {
    floor_measured.push_back(measured[p]);
    model_predicted.push_back(predicted[p]);
    floor_groups.push_back(groups[p]);
  }
  costmodel::Metrics floor = costmodel::evaluate(floor_predicted, floor_measured, floor_groups);
  costmodel::Metrics model_on_floor = costmodel::evaluate(model_predicted, floor_measured, floor_groups);
  return {model_name, std::move(split), m, std::move(predicted), std::move(measured), floor, model_on_floor,
          before};
}

void run_eval(const EvalOptions& o) {
  for (const std::string& name : o.split)
    if (name != "all" && name != "random" && name != "cross-model" && name != "cross-device" && name != "cross-cpu")
      throw CommandFailed("--split takes random, cross-model, cross-device, cross-cpu or all (comma-separated), not '" +
                              name + "'",
                          kExitUsage);
  auto listed = [&](const char* name) { return std::find(o.split.begin(), o.split.end(), name) != o.split.end(); };
  auto wants = [&](const char* name) { return listed(name) || listed("all"); };
  if (!o.networks.empty() && !wants("cross-model"))
    throw CommandFailed("--networks selects cross-model splits; add cross-model to --split", kExitUsage);
  if (!o.held_out_devices.empty() && !wants("cross-device") && !wants("cross-cpu"))
    throw CommandFailed("--held-out-devices selects cross-device and cross-cpu splits; add one to --split", kExitUsage);
  std::map<std::string, std::set<std::string>> held_out_networks;
  if (wants("cross-model")) {
    held_out_networks = zoo_workloads();
    if (!o.networks.empty()) {
      std::map<std::string, std::set<std::string>> chosen;
      for (const std::string& n : o.networks) {
        auto it = held_out_networks.find(n);
        if (it == held_out_networks.end()) {
          std::vector<std::string> names;
          for (const auto& [name, _] : held_out_networks) names.push_back(name);
          throw CommandFailed(fmt::format("--networks: no zoo network '{}' (one of: {})", n, fmt::join(names, ", ")),
                              kExitUsage);
        }
        chosen.insert(*it);
      }
      held_out_networks = std::move(chosen);
    }
  }
  for (const std::string& m : o.cost_models) {
    Status known = costmodel::make_cost_model(m).status();
    if (!known.ok()) throw CommandFailed("--cost-model: " + known.message(), kExitUsage);
  }
  if (!o.save.empty() && o.cost_models.size() != 1)
    throw CommandFailed("--save takes one --cost-model", kExitUsage);
  costmodel::DeviceTable devices;
  check(devices.add_directory(o.devices));
  auto store = check(db::open_store(o.db, db::OpenMode::kRead));
  // Usage errors that the store's device list shows are found before featurising, which takes minutes.
  std::vector<std::string> stored;
  for (const db::DeviceSummary& d : check(store->devices())) stored.push_back(d.device.key);
  auto cross_cpu_without_two_cpus = [&](const std::set<std::string>& cpus) {
    return CommandFailed(fmt::format("--split cross-cpu needs records of at least two CPUs; {} holds only {}", o.db,
                                     cpus.empty() ? std::string("none") : *cpus.begin()),
                         kExitUsage);
  };
  if (listed("cross-cpu")) {
    std::set<std::string> cpus;
    for (const std::string& k : stored) cpus.insert(costmodel::cpu_of_device(devices.device_of(k)));
    if (cpus.size() < 2) throw cross_cpu_without_two_cpus(cpus);
  }
  for (const std::string& k : o.held_out_devices)
    if (std::find(stored.begin(), stored.end(), k) == stored.end())
      throw CommandFailed(fmt::format("--held-out-devices: {} has no records of device '{}' (it has: {})", o.db, k,
                                      fmt::join(stored, ", ")),
                          kExitUsage);
  // Progress goes to stderr with --json too: stdout holds only the JSON, and a whole evaluation takes
  // minutes to hours.
  ProgressBar progress;
  costmodel::SampleSetOptions so;
  so.max_samples = o.max_samples;
  std::unique_ptr<features::FeatureCache> feature_cache;
  if (o.feature_cache != "off") {
    const std::string path = o.feature_cache.empty() ? features::default_feature_cache_path() : o.feature_cache;
    Result<std::unique_ptr<features::FeatureCache>> opened = features::FeatureCache::open(path);
    if (opened.ok()) {
      feature_cache = std::move(*opened);
      so.feature_cache = feature_cache.get();
    } else if (!o.feature_cache.empty()) {  // a file the user named
      throw CommandFailed(opened.status().message() + " (--feature-cache off featurises without one)", kExitUsage);
    } else {
      std::fprintf(stderr, "warning: %s; featurising without a feature cache\n", opened.status().message().c_str());
    }
  }
  if (o.every_session) so.newest_session_hours = 0;
  so.progress = [&](size_t done, size_t all) {
    progress.update(static_cast<int64_t>(done), static_cast<int64_t>(all), "programs featurised");
  };
  costmodel::SampleSet set = check(costmodel::samples_from_store(*store, devices, so));
  progress.finish();
  if (feature_cache != nullptr) {
    std::fprintf(stderr, "eval: %zu programs' features read from %s, %zu featurised\n", feature_cache->hits(),
                 feature_cache->path().c_str(), feature_cache->computed());
    if (feature_cache->write_errors() > 0)
      std::fprintf(stderr, "warning: %zu chunks of features could not be written to %s (the next run featurises them again)\n",
                   feature_cache->write_errors(), feature_cache->path().c_str());
  }
  if (set.samples.size() < 10)
    throw CommandFailed(fmt::format("{} has {} usable records; a cost model needs more (make_dataset.sh)", o.db,
                                    set.samples.size()));
  // A key whose CPU the descriptions hold under an older key is that device measured again (its samples
  // have the older key's vector already): its samples count as the older key's, so that a cross-device
  // split holds out both and tests on both.
  for (costmodel::Sample& s : set.samples) s.device_key = devices.device_of(s.device_key);
  std::vector<costmodel::Split> splits;
  if (wants("random")) splits.push_back(costmodel::random_split(set.samples, 0.2, o.seed));
  if (wants("cross-model")) {
    std::vector<costmodel::Split> cross_model = costmodel::cross_model_splits(set.samples, held_out_networks);
    if (cross_model.empty() && !o.networks.empty())
      throw CommandFailed(
          fmt::format("--networks {}: in {}, no such network has both records of its workloads and "
                      "other records to train on",
                      fmt::join(o.networks, ","), o.db));
    for (auto& s : cross_model) splits.push_back(std::move(s));
  }
  std::set<std::string> keys, cpus;
  for (const costmodel::Sample& s : set.samples) {
    keys.insert(s.device_key);
    cpus.insert(costmodel::cpu_of_device(s.device_key));
  }
  // The named devices, as their samples count them (a newer key of a CPU described under an older
  // key is that older key's device).
  std::set<std::string> held_out_keys;
  for (const std::string& k : o.held_out_devices) held_out_keys.insert(devices.device_of(k));
  auto add_device_splits = [&](costmodel::HoldOut hold_out) {
    for (const std::string& key : keys) {
      if (!held_out_keys.empty() && !held_out_keys.count(key)) continue;
      for (double share : o.shares)
        for (auto sel : {costmodel::Selection::kKMeans, costmodel::Selection::kRandom})
          splits.push_back(costmodel::cross_device_split(set.samples, key, share / 100.0, sel, o.seed, hold_out));
    }
  };
  if (wants("cross-device") && keys.size() >= 2) add_device_splits(costmodel::HoldOut::kDevice);
  if (listed("cross-cpu") && cpus.size() < 2) throw cross_cpu_without_two_cpus(cpus);  // a CPU without usable records
  if (wants("cross-cpu") && cpus.size() >= 2) add_device_splits(costmodel::HoldOut::kCpu);
  std::vector<SplitResult> results;
  const costmodel::RepeatIndex repeats(set.samples);
  size_t step = 0;
  for (const std::string& m : o.cost_models) {
    Pretrained pretrained;
    for (const costmodel::Split& split : splits) {
      std::fprintf(stderr, "eval: [%zu/%zu] %s %s\n", ++step, splits.size() * o.cost_models.size(), m.c_str(),
                   split.name.c_str());
      results.push_back(run_split(o, m, set.samples, repeats, split, pretrained));
    }
  }
  if (!o.save.empty()) {
    auto model =
        check(costmodel::make_cost_model(o.cost_models[0], costmodel::CostModelOptions{o.threads, o.seed, o.epochs, 0}));
    check(model->fit(set.samples));
    // The file keeps the descriptions of the devices it learned: `predict` and `tune` use those
    // vectors for them instead of peaks measured again.
    costmodel::DeviceTable trained_on;
    for (const std::string& key : keys)
      if (const measure::Device* d = devices.find(key)) {
        trained_on.add(*d);
        // Its samples had the vector of the description that stands for its CPU (its older key's,
        // where there is one: DeviceTable::vector_for): keep that too.
        trained_on.add(*devices.find_for(*d));
      }
    check(costmodel::save_cost_model(*model, o.save, &trained_on));
  }
  if (!o.predictions.empty()) {
    // One row per test sample of every split, for analyses the tables do not make (per operator
    // kind, per provider, per config).
    auto quoted = [](const std::string& field) {  // RFC 4180: in quotes, quotes doubled
      std::string q = "\"";
      for (char c : field) q += c == '"' ? std::string("\"\"") : std::string(1, c);
      return q + "\"";
    };
    auto file = check(AtomicFile::create(o.predictions));
    file.stream() << "model,split,workload,device,provider,measured_s,predicted_s,config,chained\n";
    for (const SplitResult& r : results)
      for (size_t i = 0; i < r.split.test.size(); ++i) {
        const costmodel::Sample& s = set.samples[r.split.test[i]];
        file.stream() << r.model << ',' << r.split.name << ',' << quoted(s.workload) << ',' << s.device_key << ','
                      << s.provider << ',' << fmt::format("{:.6g},{:.6g}", r.measured[i], r.predicted[i]) << ','
                      << quoted(s.config) << ',' << (s.chained ? 1 : 0) << '\n';
      }
    check(file.commit());
  }
  if (!o.plot_spec.empty()) {
    nlohmann::json panels = nlohmann::json::array();
    for (const SplitResult& r : results) {
      // Every model's random split; the first model's cross-model splits.
      const bool cross_model = r.split.name.rfind("cross-model", 0) == 0;
      if (r.split.name != "random" && !(cross_model && r.model == o.cost_models.front())) continue;
      std::vector<double> x, y;
      for (size_t i = 0; i < r.measured.size(); ++i) {
        x.push_back(r.measured[i] * 1e3);
        y.push_back(r.predicted[i] * 1e3);
      }
      panels.push_back({{"kind", "scatter"},
                        {"title", fmt::format("{} {} (MAPE {:.1f}%)", r.model, r.split.name, 100 * r.metrics.mape)},
                        {"xlabel", "measured ms"},
                        {"ylabel", "predicted ms"},
                        {"logx", true},
                        {"logy", true},
                        {"diagonal", true},
                        {"series", {{{"label", r.model}, {"x", x}, {"y", y}}}}});
    }
    auto file = check(AtomicFile::create(o.plot_spec));
    file.stream() << nlohmann::json{{"title", "predicted vs measured latency"}, {"columns", 3}, {"panels", panels}}.dump();
    check(file.commit());
  }
  if (o.json) {
    nlohmann::json out{{"cost_models", o.cost_models},
                       {"samples", set.samples.size()},
                       {"skipped", set.skipped},
                       {"superseded", set.superseded},
                       {"feature_cache", feature_cache == nullptr
                                             ? nlohmann::json(nullptr)
                                             : nlohmann::json{{"path", feature_cache->path()},
                                                              {"hits", feature_cache->hits()},
                                                              {"computed", feature_cache->computed()}}},
                       {"closest_device", set.closest_device},
                       {"off_clock", nlohmann::json::object()},
                       {"splits", nlohmann::json::array()}};
    for (const auto& [device, off] : set.off_clock)
      for (const auto& [mhz, n] : off.records) out["off_clock"][device][std::to_string(mhz)] = n;
    for (const SplitResult& r : results) {
      nlohmann::json m = costmodel::metrics_to_json(r.metrics);
      m["model"] = r.model;
      m["split"] = r.split.name;
      m["train"] = r.split.train.size();
      m["fine_tune"] = r.split.fine_tune.size();
      m["test"] = r.split.test.size();
      nlohmann::json floor = costmodel::metrics_to_json(r.floor);
      floor["model"] = costmodel::metrics_to_json(r.model_on_floor);
      m["noise_floor"] = floor;
      m["pretrained"] = r.pretrained ? costmodel::metrics_to_json(*r.pretrained) : nlohmann::json(nullptr);
      out["splits"].push_back(m);
    }
    std::puts(out.dump(2).c_str());
    return;
  }
  std::printf("%s on %s: %zu samples (%zu records skipped, %zu measured again in a later session left out)%s\n\n", fmt::format("{}", fmt::join(o.cost_models, ", ")).c_str(), o.db.c_str(),
              set.samples.size(), set.skipped, set.superseded,
              set.closest_device.empty() ? ""
                                         : fmt::format("; {} device(s) described by the closest known device",
                                                       set.closest_device.size())
                                               .c_str());
  for (const auto& [device, off] : set.off_clock)
    for (const auto& [mhz, n] : off.records)
      std::printf(
          "note: %zu records of %s were measured at %ld MHz; the description of %s says %.0f MHz (another "
          "host: %s)\n",
          n, device.c_str(), mhz, off.described_by.c_str(), off.described_mhz,
          off.scaled ? "their seconds are scaled to the described clock" : "its vector does not describe them");
  if (!set.off_clock.empty()) std::printf("\n");
  Table table({{"model"},
               {"split"},
               {"train", Align::kRight},
               {"fine-tune", Align::kRight},
               {"test", Align::kRight},
               {"MAPE", Align::kRight},
               {"pre-trained", Align::kRight},
               {"RMSE ln", Align::kRight},
               {"<=10%", Align::kRight},
               {"<=20%", Align::kRight},
               {"pairwise", Align::kRight},
               {"top-1", Align::kRight},
               {"top-5", Align::kRight},
               {"repeats", Align::kRight},
               {"floor MAPE", Align::kRight},
               {"model there", Align::kRight}});
  for (const SplitResult& r : results)
    table.add_row({r.model, r.split.name, std::to_string(r.split.train.size()),
                   std::to_string(r.split.fine_tune.size()), std::to_string(r.split.test.size()),
                   fmt::format("{:.1f}%", 100 * r.metrics.mape),
                   r.pretrained ? fmt::format("{:.1f}%", 100 * r.pretrained->mape) : "-",
                   fmt::format("{:.3f}", r.metrics.rmse_log),
                   fmt::format("{:.1f}%", 100 * r.metrics.within_10), fmt::format("{:.1f}%", 100 * r.metrics.within_20),
                   fmt::format("{:.3f}", r.metrics.pairwise), fmt::format("{:.3f}", r.metrics.top1),
                   fmt::format("{:.3f}", r.metrics.top5), std::to_string(r.floor.samples),
                   r.floor.samples ? fmt::format("{:.1f}%", 100 * r.floor.mape) : "-",
                   r.floor.samples ? fmt::format("{:.1f}%", 100 * r.model_on_floor.mape) : "-"});
  table.print();
  std::printf(
      "\npre-trained: the MAPE before fine-tuning with the held-out device's share (cross-device, cross-cpu); "
      "repeats: test samples whose config was measured more than once on its device; floor MAPE: each predicted by "
      "the median of its other measurements (the measurements' own repeatability: 1 to 2 times the error of knowing "
      "the true latency); model there: the model's MAPE on the same samples\n");
}

}  // namespace

void register_eval_command(CLI::App& app) {
  static EvalOptions o;
  auto* cmd = app.add_subcommand("eval", "evaluate a cost model on a database's measurements: random, cross-model, "
                                         "cross-device and cross-cpu splits (MAPE, within 10/20%, pairwise ranking, top-k)");
  cmd->add_option("--db", o.db, "the database of measurements (SQLite path or postgresql:// URL)")->capture_default_str();
  cmd->add_option("--devices", o.devices, "directory of device-<key>.json descriptions (measured peaks)")
      ->capture_default_str();
  cmd->add_option("--cost-model", o.cost_models, "which models, comma-separated: " + costmodel::cost_model_names())
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--split", o.split,
                  "comma-separated: random, cross-model, cross-device, cross-cpu (every device of the held-out "
                  "device's CPU kept out of pre-training), or all")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--networks", o.networks,
                  "cross-model: hold out only these zoo networks, comma-separated (default: each network with records)")
      ->delimiter(',');
  cmd->add_option("--held-out-devices", o.held_out_devices,
                  "cross-device, cross-cpu: hold out only these device keys, comma-separated (default: each device)")
      ->delimiter(',');
  cmd->add_option("--shares", o.shares, "cross-device and cross-cpu: percentages of the held-out device's samples to train with")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_option("--max-samples", o.max_samples, "use an even subsample of this many records (0: all)")
      ->capture_default_str();
  cmd->add_flag("--every-session", o.every_session,
                "keep every record of a program that several sessions measured (default: only those of its newest "
                "session, the records within 6 hours of its newest; hosts of one device key differ)");
  cmd->add_option("--feature-cache", o.feature_cache,
                  "file of program features kept between runs (an SQLite file; default: "
                  "$XDG_CACHE_HOME/tensorperf/features.sqlite, else ~/.cache/tensorperf/features.sqlite; off: "
                  "featurise every program on every run)");
  cmd->add_option("--threads", o.threads, "training threads")->capture_default_str()->check(positive());
  cmd->add_option("--seed", o.seed, "seed of splits, selection and training")->capture_default_str();
  cmd->add_option("--epochs", o.epochs, "neural models: passes over the training set (0: from its size)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--save", o.save, "also train on every sample and save the model to this file");
  cmd->add_option("--cmd", o.cmd,
                  "transformer: weight of the central-moment-discrepancy regulariser between the embeddings of the "
                  "training programs and the held-out ones (cross-model, cross-device and cross-cpu splits; 0: off)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--joint", o.joint,
                "cross-device and cross-cpu: train one model on the other devices and the chosen share together instead of "
                "pre-training on the others and fine-tuning with the share");
  cmd->add_option("--predictions", o.predictions,
                  "write every split's test predictions as CSV: model, split, workload, device, provider, measured_s, "
                  "predicted_s, config (the knobs as JSON), chained (1: the program inside a chain of native layouts)");
  cmd->add_option("--plot-spec", o.plot_spec,
                  "write a predicted-vs-measured figure spec for scripts/plot.py (every model's random split, the "
                  "first model's cross-model splits)");
  cmd->add_flag(
      "--json", o.json,
      "print one JSON object {cost_models, samples, skipped, superseded, feature_cache: {path, hits, computed} or null, closest_device, off_clock: {device: {MHz: records "
      "measured at that clock, not the description's}}, splits: [{model, split, train, test, "
      "mape, rmse_log, within_10, within_20, pairwise, top1, top5, groups, fine_tune, noise_floor: {samples, mape, "
      "..., model: {samples, mape, ...}}, pretrained: {mape, ...} (the model before fine-tuning) or null}]}");
  cmd->callback([] { run_eval(o); });
}

}  // namespace tensorperf::cli
