// db_bench: imports TopHub-style AutoTVM logs replicated to N records (default 1,000,000) into each
// backend and reports import records/s and best-config query latency p50/p99 at that size.
// The replicas are TopHub's AutoTVM logs (every file of --logs DIR, by default the autotvm folder of
// the TENSORPERF_TVM_LOGS CMake cache path) with the config index and the cost changed per replica,
// so every line is a distinct record of the same workloads and devices (about 800 records per
// (workload, device)).
// Usage: db_bench [--records N] [--queries Q] [--batch N] [--backends sqlite,postgresql] [--logs DIR]
//                 [--json]
// (--batch: records per import transaction, the importer's default unless given)
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sys/resource.h>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "db/best_configs.h"
#include "db/importer.h"
#include "db/line_parser.h"
#include "db/record_store.h"
#include "pg_server.h"

namespace {

using Clock = std::chrono::steady_clock;
using tensorperf::db::LineParser;

struct Options {
  int64_t records = 1000000;
  int queries = 20000;
  size_t batch = tensorperf::db::ImportOptions{}.batch_size;
  std::vector<std::string> backends = {"sqlite", "postgresql"};
  bool json = false;
  std::string logs = std::string(TENSORPERF_TVM_LOGS) + "/autotvm";
};

std::vector<std::string> base_lines(const std::string& logs) {
  std::vector<std::string> lines;
  const std::filesystem::path dir(logs);
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f);
    for (std::string l; std::getline(in, l);)
      if (!tensorperf::db::is_skippable_line(l)) lines.push_back(l);
  }
  return lines;
}

// `line` with its config index (where it has one), first cost and timestamp changed for replica r.
std::string replica(const std::string& line, int64_t r, std::mt19937_64& rng) {
  std::string out = line;
  bool v02 = out.compare(0, 9, "{\"input\":") == 0;
  const char* index_key = v02 ? "\"config\": {\"index\": " : "{\"i\": ";
  size_t p = v02 ? out.find(index_key) : out.rfind(index_key);
  if (p != std::string::npos && std::isdigit(static_cast<unsigned char>(out[p + std::strlen(index_key)]))) {
    p += std::strlen(index_key);
    size_t e = out.find_first_not_of("0123456789", p);
    out.replace(p, e - p, std::to_string(std::stoll(out.substr(p, e - p)) + r * 100000000LL));
  }
  const char* cost_key = v02 ? "\"result\": [[" : "\"r\": [[";
  size_t c = out.find(cost_key);
  if (c != std::string::npos) {
    c += std::strlen(cost_key);
    size_t e = out.find_first_of(",]", c);
    double cost = std::stod(out.substr(c, e - c)) * std::uniform_real_distribution<double>(1.0, 3.0)(rng);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", cost);
    out.replace(c, e - c, buf);
    // [costs], error_no, all_cost, timestamp]: the timestamp follows the third comma after the costs.
    size_t t = out.find(']', c);
    for (int i = 0; i < 3 && t != std::string::npos; ++i) t = out.find(',', t + 1);
    if (t != std::string::npos) {
      size_t te = out.find(']', t);
      out.replace(t + 1, te - t - 1, " " + std::to_string(1600000000 + r));
    }
  }
  return out;
}

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  return s(u.ru_utime) + s(u.ru_stime);
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

struct Row {
  std::string backend;
  int64_t records = 0;
  double import_s = 0;
  double import_rate = 0;
  double import_cpu_us = 0;  // process CPU time (user + system, both threads) per record
  double p50_us = 0, p99_us = 0;
};

Row run(const std::string& backend, const std::string& url, const std::string& log, int64_t n,
        const std::vector<std::pair<std::string, std::string>>& keys, int queries, size_t batch) {
  Row row;
  row.backend = backend;
  auto store = tensorperf::db::open_store(url, tensorperf::db::OpenMode::kCreate);
  if (!store.ok()) throw std::runtime_error(store.status().message());
  std::fprintf(stderr, "%s: importing %lld records\n", backend.c_str(), static_cast<long long>(n));
  auto t0 = Clock::now();
  double cpu0 = cpu_seconds();
  tensorperf::db::ImportOptions options;
  options.batch_size = batch;
  auto report = tensorperf::db::import_file(**store, log, options, {});
  row.import_s = std::chrono::duration<double>(Clock::now() - t0).count();
  double cpu_s = cpu_seconds() - cpu0;
  if (!report.ok()) throw std::runtime_error(report.status().message());
  row.records = report->inserted;
  row.import_rate = static_cast<double>(report->records) / row.import_s;
  row.import_cpu_us = 1e6 * cpu_s / static_cast<double>(std::max<int64_t>(1, report->records));
  std::fprintf(stderr, "%s: %lld new records in %.1f s; querying\n", backend.c_str(),
               static_cast<long long>(report->inserted), row.import_s);
  std::mt19937_64 rng(1);
  std::vector<double> us;
  for (int i = 0; i < queries + 1000; ++i) {
    const auto& [w, d] = keys[rng() % keys.size()];
    auto q0 = Clock::now();
    auto best = tensorperf::db::best_configs(**store, w, d, 1);
    double t = std::chrono::duration<double, std::micro>(Clock::now() - q0).count();
    if (!best.ok() || best->records.empty()) throw std::runtime_error("best query found nothing for " + w);
    if (i >= 1000) us.push_back(t);  // the first 1000 warm the caches
  }
  row.p50_us = percentile(us, 0.50);
  row.p99_us = percentile(us, 0.99);
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--records" && i + 1 < argc) o.records = std::stoll(argv[++i]);
    else if (a == "--queries" && i + 1 < argc) o.queries = std::stoi(argv[++i]);
    else if (a == "--batch" && i + 1 < argc) o.batch = std::stoul(argv[++i]);
    else if (a == "--backends" && i + 1 < argc) {
      o.backends.clear();
      std::string s = argv[++i];
      for (size_t p = 0; p <= s.size();) {
        size_t e = s.find(',', p);
        if (e == std::string::npos) e = s.size();
        o.backends.push_back(s.substr(p, e - p));
        p = e + 1;
      }
    } else if (a == "--logs" && i + 1 < argc) o.logs = argv[++i];
    else if (a == "--json") o.json = true;
    else {
      std::fprintf(stderr, "usage: db_bench [--records N] [--queries Q] [--batch N] [--backends sqlite,postgresql] [--logs DIR] "
                   "[--json]\n");
      return 2;
    }
  }
  try {
    std::vector<std::string> base = base_lines(o.logs);
    if (base.empty()) throw std::runtime_error("no AutoTVM log lines under " + o.logs + "; give the folder with --logs DIR");
    std::vector<std::pair<std::string, std::string>> keys;
    LineParser parser;
    for (const auto& l : base) {
      auto p = parser.parse(l);
      if (p.ok()) keys.emplace_back(p->workload_key, p->device.key);
    }
    char tmpl[] = "/tmp/tensorperf-db-bench-XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("cannot create a temp dir");
    std::string dir = tmpl;
    // Removes the replicated log (hundreds of MB) however the run ends.
    std::unique_ptr<std::string, void (*)(std::string*)> cleanup(&dir, [](std::string* d) {
      std::error_code ec;
      std::filesystem::remove_all(*d, ec);
    });
    std::string log = dir + "/tophub-replicated.log";
    {
      std::fprintf(stderr, "writing %lld replicated records to %s\n", static_cast<long long>(o.records), log.c_str());
      std::ofstream out(log, std::ios::binary);
      std::mt19937_64 rng(42);
      for (int64_t i = 0; i < o.records; ++i)
        out << replica(base[i % base.size()], i / static_cast<int64_t>(base.size()), rng) << '\n';
    }
    std::vector<Row> rows;
    for (const auto& b : o.backends) {
      if (b == "sqlite") {
        rows.push_back(run(b, dir + "/bench.db", log, o.records, keys, o.queries, o.batch));
      } else if (b == "postgresql") {
        auto server = tensorperf::testing::PgServer::start();
        if (!server.ok()) throw std::runtime_error("PostgreSQL did not start: " + server.status().message());
        auto url = (*server)->create_database("bench");
        if (!url.ok()) throw std::runtime_error(url.status().message());
        rows.push_back(run(b, *url, log, o.records, keys, o.queries, o.batch));
      } else {
        throw std::runtime_error("unknown backend " + b);
      }
    }
    if (o.json) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& r : rows)
        out.push_back({{"backend", r.backend}, {"records", r.records}, {"import_s", r.import_s},
                       {"import_records_per_s", r.import_rate}, {"import_cpu_us_per_record", r.import_cpu_us}, {"best_query_p50_us", r.p50_us},
                       {"best_query_p99_us", r.p99_us}});
      std::puts(out.dump(2).c_str());
    } else {
      std::printf("%-11s %10s %10s %14s %12s %12s %12s\n", "backend", "records", "import s", "import rec/s",
                  "cpu us/rec", "best p50 us", "best p99 us");
      for (const auto& r : rows)
        std::printf("%-11s %10lld %10.2f %14.0f %12.2f %12.1f %12.1f\n", r.backend.c_str(),
                    static_cast<long long>(r.records), r.import_s, r.import_rate, r.import_cpu_us, r.p50_us, r.p99_us);
      std::printf("targets (2-core machine): SQLite import >= 200000 rec/s, best-config query p99 <= 1000 us\n"
                  "cpu us/rec: process CPU time of the import per record (parser and store threads together);\n"
                  "  with 2 idle cores the import rate can reach about 2e6 / cpu us/rec\n");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "db_bench: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
