// `tensorperf db`: the tuning database. init, import (TVM logs, tensorperf records), export (all or
// apply_history_best's picks), best (with closest-device fallback), devices, workloads, stats.
// --db is a SQLite path (default tensorperf.db, or $TENSORPERF_DB) or a postgresql:// URL; the
// password of a URL is never printed.
#include <cstdio>
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "cli/command.h"
#include "cli/exit.h"
#include "cli/table.h"
#include "cli/validators.h"
#include "db/best_configs.h"
#include "db/exporter.h"
#include "db/importer.h"
#include "db/record_store.h"
#include "db/store_url.h"

namespace tensorperf::cli {
namespace {

struct DbOptions {
  std::string url = std::string(db::kDefaultStoreUrl);
  bool json = false;
  // import
  std::vector<std::string> files;
  bool strict = false;
  size_t batch = db::ImportOptions().batch_size;
  // export
  bool best = false;
  std::string output;
  std::string format;
  // export, best
  std::string workload;
  std::string device;
  int k = 1;
};

std::unique_ptr<db::RecordStore> open(const DbOptions& o, db::OpenMode mode) {
  return check(db::open_store(o.url, mode));
}

std::string seconds(std::optional<double> s) {
  if (!s) return "-";
  if (*s >= 1) return fmt::format("{:.3f} s", *s);
  if (*s >= 1e-3) return fmt::format("{:.3f} ms", *s * 1e3);
  return fmt::format("{:.3f} us", *s * 1e6);
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

void run_init(const DbOptions& o) {
  auto store = open(o, db::OpenMode::kCreate);
  auto stats = check(store->stats());
  std::printf("%s database %s ready (schema version %d, %lld records)\n", std::string(store->backend()).c_str(),
              db::redact_url(o.url).c_str(), stats.schema_version, static_cast<long long>(stats.records));
}

void run_import(const DbOptions& o) {
  auto store = open(o, db::OpenMode::kCreate);
  db::ImportOptions options;
  options.strict = o.strict;
  options.batch_size = o.batch;
  Table table({{"file"}, {"records", Align::kRight}, {"new", Align::kRight}, {"duplicate", Align::kRight},
               {"skipped", Align::kRight}});
  nlohmann::json out = nlohmann::json::array();
  db::ImportReport total;
  for (const std::string& f : o.files) {
    std::fprintf(stderr, "importing %s\n", f.c_str());
    auto report = check(db::import_file(*store, f, options, [](const std::string& problem) {
      std::fprintf(stderr, "%s (skipped)\n", problem.c_str());
    }));
    if (report.records == 0 && report.skipped > 0)
      throw CommandFailed(f + ": no record in it: all " + std::to_string(report.skipped) +
                          " lines with content were malformed (see above)");
    total.records += report.records;
    total.inserted += report.inserted;
    total.duplicates += report.duplicates;
    total.skipped += report.skipped;
    table.add_row({f, std::to_string(report.records), std::to_string(report.inserted),
                   std::to_string(report.duplicates), std::to_string(report.skipped)});
    out.push_back({{"file", f}, {"lines", report.lines}, {"records", report.records}, {"inserted", report.inserted},
                   {"duplicates", report.duplicates}, {"skipped", report.skipped}});
  }
  if (o.json) {
    std::puts(out.dump(2).c_str());
    return;
  }
  table.add_footer({"total", std::to_string(total.records), std::to_string(total.inserted),
                    std::to_string(total.duplicates), std::to_string(total.skipped)});
  table.print();
}

std::optional<db::RecordFormat> parse_format(const std::string& name) {
  if (name.empty()) return std::nullopt;
  for (auto f : {db::RecordFormat::kAutotvmV01, db::RecordFormat::kAutotvmV02, db::RecordFormat::kAnsor,
                 db::RecordFormat::kNative})
    if (db::format_name(f) == name) return f;
  throw CommandFailed("unknown --format " + name + "; use autotvm-v0.1, autotvm-v0.2, ansor or native", kExitUsage);
}

// An export must never overwrite the store it reads (or the files SQLite keeps beside it).
void refuse_store_as_output(const DbOptions& o) {
  if (o.output.empty() || o.output == "-" || db::is_postgres_url(o.url)) return;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    if (same_file(o.output, o.url + suffix))
      throw CommandFailed("refusing to write the export over the database itself (" + o.output +
                              "); give another -o FILE",
                          kExitUsage);
}

void run_export(const DbOptions& o) {
  refuse_store_as_output(o);
  auto store = open(o, db::OpenMode::kRead);
  db::ExportOptions options;
  options.selection = o.best ? db::ExportSelection::kBest : db::ExportSelection::kAll;
  options.filter.workload_key = o.workload;
  options.filter.device_key = o.device;
  options.filter.format = parse_format(o.format);
  int64_t n = 0;
  if (o.output.empty() || o.output == "-") {
    n = check(db::export_records(*store, options, std::cout));
    std::cout.flush();
  } else {
    // Written beside the destination and renamed over it only when complete.
    AtomicFile file = check(AtomicFile::create(o.output));
    n = check(db::export_records(*store, options, file.stream()));
    check(file.commit());
  }
  std::fprintf(stderr, "exported %lld records\n", static_cast<long long>(n));
}

void run_best(const DbOptions& o) {
  auto store = open(o, db::OpenMode::kRead);
  auto best = check(db::best_configs(*store, o.workload, o.device, o.k));
  if (o.json) {
    nlohmann::json out{{"workload", o.workload}, {"device", o.device},
                       {"match", std::string(db::match_name(best.match))}, {"matched_on", best.matched_on},
                       {"records", nlohmann::json::array()}};
    for (const auto& r : best.records)
      out["records"].push_back({{"id", r.id}, {"device", r.device_key}, {"mean_cost", *r.mean_cost},
                                {"format", std::string(db::format_name(r.format))},
                                {"config", nlohmann::json::parse(r.config, nullptr, false)}});
    std::puts(out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return;
  }
  if (best.records.empty()) throw CommandFailed("no error-free record of that workload on " + o.device +
                                                " or a device close to it; see `tensorperf db devices`");
  if (best.match != db::DeviceMatch::kExact)
    std::fprintf(stderr, "note: no record on %s itself; these come from the closest devices (same %s: %s)\n",
                 o.device.c_str(), best.match == db::DeviceMatch::kModel ? "model" : "target key",
                 best.matched_on.c_str());
  Table table({{"#", Align::kRight}, {"mean cost", Align::kRight}, {"match"}, {"device", Align::kLeft, 60},
               {"config", Align::kLeft, 100}});
  for (size_t i = 0; i < best.records.size(); ++i) {
    const auto& r = best.records[i];
    table.add_row({std::to_string(i + 1), seconds(r.mean_cost), std::string(db::match_name(best.match)), r.device_key,
                   r.config});
  }
  table.print();
}

void run_devices(const DbOptions& o) {
  auto store = open(o, db::OpenMode::kRead);
  auto devices = check(store->devices());
  if (o.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& d : devices)
      out.push_back({{"device", d.device.key}, {"target", d.device.target}, {"keys", d.device.keys},
                     {"model", d.device.model}, {"mcpu", d.device.mcpu}, {"records", d.records},
                     {"workloads", d.workloads}});
    std::puts(out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return;
  }
  Table table({{"device", Align::kLeft, 80}, {"keys"}, {"model"}, {"mcpu/device"}, {"records", Align::kRight},
               {"workloads", Align::kRight}});
  for (const auto& d : devices)
    table.add_row({d.device.key, join(d.device.keys), d.device.model, d.device.mcpu, std::to_string(d.records),
                   std::to_string(d.workloads)});
  table.print();
}

void run_workloads(const DbOptions& o) {
  auto store = open(o, db::OpenMode::kRead);
  auto workloads = check(store->workloads());
  if (o.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& w : workloads) {
      nlohmann::json j{{"workload", w.key}, {"records", w.records}, {"devices", w.devices}};
      j["best_mean_cost"] = w.best_mean_cost ? nlohmann::json(*w.best_mean_cost) : nlohmann::json();
      out.push_back(j);
    }
    std::puts(out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return;
  }
  Table table({{"workload", Align::kLeft, 120}, {"records", Align::kRight}, {"devices", Align::kRight},
               {"best mean cost", Align::kRight}});
  for (const auto& w : workloads)
    table.add_row({w.key, std::to_string(w.records), std::to_string(w.devices), seconds(w.best_mean_cost)});
  table.print();
}

void run_stats(const DbOptions& o) {
  auto store = open(o, db::OpenMode::kRead);
  auto s = check(store->stats());
  if (o.json) {
    nlohmann::json out{{"backend", std::string(store->backend())}, {"database", db::redact_url(o.url)},
                       {"schema_version", s.schema_version}, {"records", s.records},
                       {"error_records", s.error_records}, {"workloads", s.workloads}, {"devices", s.devices},
                       {"configs", s.configs}, {"records_by_format", nlohmann::json::object()},
                       {"build_info", nlohmann::json::object()}};
    for (const auto& [f, n] : s.records_by_format) out["records_by_format"][std::string(db::format_name(f))] = n;
    for (const auto& [c, v] : s.build_info) out["build_info"][c] = v;
    std::puts(out.dump(2).c_str());
    return;
  }
  Table table({{"what"}, {"value", Align::kRight}});
  table.add_row({"backend", std::string(store->backend())});
  table.add_row({"database", db::redact_url(o.url)});
  table.add_row({"schema version", std::to_string(s.schema_version)});
  table.add_row({"records", std::to_string(s.records)});
  table.add_row({"  with errors", std::to_string(s.error_records)});
  for (const auto& [f, n] : s.records_by_format) table.add_row({"  " + std::string(db::format_name(f)), std::to_string(n)});
  table.add_row({"workloads", std::to_string(s.workloads)});
  table.add_row({"devices", std::to_string(s.devices)});
  table.add_row({"configs", std::to_string(s.configs)});
  for (const auto& [c, v] : s.build_info) table.add_row({"created with " + c, v});
  table.print();
}

}  // namespace

void register_db_command(CLI::App& app) {
  static DbOptions o;
  auto* db = app.add_subcommand("db", "the tuning database: import, export and query every measurement");
  db->require_subcommand(1);
  db->fallthrough();
  db->add_option("--db", o.url, "SQLite file path or postgresql://user@host:port/dbname (password from the URL or PG* "
                                "environment variables)")
      ->envname("TENSORPERF_DB")
      ->capture_default_str();

  db->add_subcommand("init", "create the database (or migrate it to this version's schema)")->callback([] {
    run_init(o);
  });

  auto* imp = db->add_subcommand("import", "import AutoTVM / auto_scheduler logs and tensorperf record files");
  imp->add_option("files", o.files, "log files, one record per line (.zst: zstd-compressed)")->required()->check(CLI::ExistingFile);
  imp->add_flag("--strict", o.strict, "stop at the first malformed line instead of skipping it");
  imp->add_option("--batch", o.batch, "records per transaction")->capture_default_str()->check(positive());
  imp->add_flag("--json", o.json, "print the per-file counts as JSON");
  imp->callback([] { run_import(o); });

  auto* exp = db->add_subcommand("export", "write records back out as the lines they were imported from");
  static bool all_flag = false;
  auto* all = exp->add_flag("--all", all_flag, "every record (the default)");
  exp->add_flag("--best", o.best, "per workload, the records TVM's apply_history_best would pick")->excludes(all);
  exp->add_option("-o,--output", o.output, "output file (default: stdout)");
  exp->add_option("--workload", o.workload, "only this workload key");
  exp->add_option("--device", o.device, "only this device key / TVM target string");
  exp->add_option("--format", o.format, "only this format: autotvm-v0.1, autotvm-v0.2, ansor, native");
  exp->callback([] { run_export(o); });

  auto* best = db->add_subcommand("best", "the best configs of a workload on a device (or the closest known device)");
  best->add_option("--workload", o.workload, "workload key (see `tensorperf db workloads`)")->required();
  best->add_option("--device", o.device, "device key or TVM target string")->required();
  best->add_option("-k", o.k, "how many configs")->capture_default_str()->check(positive());
  best->add_flag("--json", o.json, "print JSON");
  best->callback([] { run_best(o); });

  auto* devices = db->add_subcommand("devices", "list the devices with their keys, model and record counts");
  devices->add_flag("--json", o.json, "print JSON");
  devices->callback([] { run_devices(o); });

  auto* workloads = db->add_subcommand("workloads", "list the workloads with record counts and best cost");
  workloads->add_flag("--json", o.json, "print JSON");
  workloads->callback([] { run_workloads(o); });

  auto* stats = db->add_subcommand("stats", "counts, schema version and build info");
  stats->add_flag("--json", o.json, "print JSON");
  stats->callback([] { run_stats(o); });
}

}  // namespace tensorperf::cli
