// `tensorperf models`: the built-in model zoo.
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/table.h"
#include "ir/models/zoo.h"

namespace tensorperf::cli {

void register_models_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("models", "list the built-in model zoo");
  static bool json = false;
  cmd->add_flag("--json", json, "print a JSON array of {name, description}");
  cmd->callback([] {
    if (json) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& m : ir::zoo_models()) out.push_back({{"name", m.name}, {"description", m.description}});
      std::puts(out.dump(2).c_str());
      return;
    }
    Table t({{"model"}, {"description"}});
    for (const auto& m : ir::zoo_models()) t.add_row({m.name, m.description});
    t.print();
  });
}

}  // namespace tensorperf::cli
