// Test helper: imports one file into a store, like `tensorperf db import`, without the CLI, so the
// concurrency and crash tests can run writers as separate processes (and SIGKILL them).
// Usage: db_import_tool URL FILE BATCH_SIZE. Prints "inserted duplicates skipped"; exits 1 on error.
#include <cstdio>
#include <string>

#include "db/importer.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s URL FILE BATCH_SIZE\n", argv[0]);
    return 2;
  }
  auto store = tensorperf::db::open_store(argv[1], tensorperf::db::OpenMode::kCreate);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().message().c_str());
    return 1;
  }
  tensorperf::db::ImportOptions options;
  options.batch_size = std::stoul(argv[3]);
  auto report = tensorperf::db::import_file(**store, argv[2], options, {});
  if (!report.ok()) {
    std::fprintf(stderr, "%s\n", report.status().message().c_str());
    return 1;
  }
  std::printf("%lld %lld %lld\n", static_cast<long long>(report->inserted), static_cast<long long>(report->duplicates),
              static_cast<long long>(report->skipped));
  return 0;
}
