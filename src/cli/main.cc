// tensorperf: profile, tune, remember and predict the performance of tensor programs.
#include <cstdio>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/exit.h"
#include "runtime/omp_wait_policy.h"

namespace {

// The commands that may run stage schedules with concurrent groups: `schedule`, and `run --schedule`.
bool runs_stage_schedules(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "schedule") return true;
  for (int i = 2; i < argc; ++i)
    if (std::string a = argv[i]; a == "--schedule" || a.rfind("--schedule=", 0) == 0) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  // Before anything else: it may execute this program again (runtime/omp_wait_policy.h).
  if (runs_stage_schedules(argc, argv)) tensorperf::runtime::use_active_wait_policy(argv);
  CLI::App app{"tensorperf: measure, tune, remember and predict the performance of DNN operators"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tensorperf 0.1.0");
  tensorperf::cli::register_commands(app);
  // A first word that is no command: say which, and what the commands are (CLI11 would say only
  // that a subcommand is required).
  if (argc > 1 && argv[1][0] != '-') {
    std::string known;
    bool found = false;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      found = found || sub->get_name() == argv[1];
      known += (known.empty() ? "" : ", ") + sub->get_name();
    }
    if (!found) {
      std::fprintf(stderr, "tensorperf: error: unknown command '%s' (commands: %s; see --help)\n", argv[1], known.c_str());
      return tensorperf::cli::kExitUsage;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version print and succeed; every other parse error is a usage error: one line.
    if (e.get_exit_code() == 0) return app.exit(e);
    std::string msg = e.what();
    for (char& c : msg)
      if (c == '\n') c = ' ';
    std::fprintf(stderr, "tensorperf: error: %s (see --help)\n", msg.c_str());
    return tensorperf::cli::kExitUsage;
  } catch (const tensorperf::cli::CommandFailed& e) {
    std::fprintf(stderr, "tensorperf: error: %s\n", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tensorperf: internal error: %s\n", e.what());
    return 70;
  }
  return 0;
}
