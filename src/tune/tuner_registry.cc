// The one table of tuners.
#include "tune/tuners.h"

namespace tensorperf::tune {

const std::vector<TunerEntry>& tuners() {
  static const std::vector<TunerEntry> table = {
      {"xgb", "model-guided: an XGBoost rank model refit every batch, simulated annealing over it, diverse picks",
       make_xgb_tuner},
      {"ga", "genetic: population, elitism, crossover on knobs, mutation, repair of invalid children", make_ga_tuner},
      {"random", "distinct random valid points", make_random_tuner},
      {"grid", "every valid point in the space's declared knob order, the last knob fastest", make_grid_tuner},
  };
  return table;
}

std::string tuner_names() {
  std::string names;
  for (const TunerEntry& e : tuners()) {
    if (!names.empty()) names += ", ";
    names += e.name;
  }
  return names;
}

Status check_tuner_name(std::string_view name) {
  for (const TunerEntry& e : tuners())
    if (e.name == name) return Status::Ok();
  return Status::NotFound("unknown tuner '" + std::string(name) + "' (known: " + tuner_names() + ")");
}

Result<std::unique_ptr<Tuner>> make_tuner(std::string_view name, const TunerContext& context) {
  for (const TunerEntry& e : tuners())
    if (e.name == name) return e.make(context);
  return check_tuner_name(name);
}

}  // namespace tensorperf::tune
