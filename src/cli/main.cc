// tensorperf: profile, tune, remember and predict the performance of tensor programs.
#include <cstdio>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/exit.h"

int main(int argc, char** argv) {
  CLI::App app{"tensorperf: measure, tune, remember and predict the performance of DNN operators"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tensorperf 0.1.0");
  tensorperf::cli::register_commands(app);
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
