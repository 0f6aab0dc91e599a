// The command table of the `tensorperf` executable. Each subcommand lives in its own file and adds
// itself to the CLI11 app through one register function listed in command.cc.
#pragma once

#include <CLI/CLI.hpp>

namespace tensorperf::cli {

// Adds every subcommand to `app`.
void register_commands(CLI::App& app);

// One per subcommand file.
void register_models_command(CLI::App& app);
void register_tasks_command(CLI::App& app);
void register_graph_command(CLI::App& app);
void register_profile_command(CLI::App& app);
void register_tune_command(CLI::App& app);
void register_run_command(CLI::App& app);
void register_optimize_command(CLI::App& app);
void register_db_command(CLI::App& app);
void register_features_command(CLI::App& app);
void register_eval_command(CLI::App& app);
void register_predict_command(CLI::App& app);
void register_calibrate_command(CLI::App& app);
void register_schedule_command(CLI::App& app);

}  // namespace tensorperf::cli
