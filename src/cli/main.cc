// tensorperf: profile, tune, remember and predict the performance of tensor programs.
#include <cstdio>
#include <exception>

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
    return app.exit(e);
  } catch (const tensorperf::cli::CommandFailed& e) {
    std::fprintf(stderr, "tensorperf: error: %s\n", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tensorperf: internal error: %s\n", e.what());
    return 70;
  }
  return 0;
}
