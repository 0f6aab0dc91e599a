// Runs the db_import_tool helper as a separate process, for the concurrency and crash tests.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace tensorperf::testing {

// Starts `db_import_tool url file batch_size`; its output goes to `log`.
pid_t start_import(const std::string& url, const std::string& file, int batch_size, const std::string& log);
// Waits for `pid`; its exit code, or -signal when a signal ended it.
int wait_for(pid_t pid);
// Writes `n` distinct AutoTVM v0.2 lines (seeded by `seed`) plus `shared` lines every writer shares.
std::vector<std::string> make_lines(int seed, int n);
void write_lines(const std::string& path, const std::vector<std::string>& lines);

}  // namespace tensorperf::testing
