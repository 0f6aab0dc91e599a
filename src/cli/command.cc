#include "cli/command.h"

namespace tensorperf::cli {

void register_commands(CLI::App& app) {
  using Register = void (*)(CLI::App&);
  static constexpr Register kCommands[] = {
      register_models_command,
      register_tasks_command,
      register_graph_command,
      register_profile_command,
      register_tune_command,
      register_run_command,
      register_optimize_command,
      register_db_command,
      register_features_command,
      register_eval_command,
      register_predict_command,
      register_calibrate_command,
      register_schedule_command,
  };
  for (Register r : kCommands) r(app);
}

}  // namespace tensorperf::cli
