// Private to tune/: the factory of each tuner (one file each), listed by tuner_registry.cc.
#pragma once

#include <memory>

#include "tune/tuner.h"

namespace tensorperf::tune {

std::unique_ptr<Tuner> make_random_tuner(const TunerContext& context);
std::unique_ptr<Tuner> make_grid_tuner(const TunerContext& context);
std::unique_ptr<Tuner> make_ga_tuner(const TunerContext& context);
std::unique_ptr<Tuner> make_xgb_tuner(const TunerContext& context);

}  // namespace tensorperf::tune
