// The directory where tensorperf keeps what it can compute again (measured device peaks, program
// features): $XDG_CACHE_HOME/tensorperf, else $HOME/.cache/tensorperf, else <temp>/tensorperf-cache.
#pragma once

#include <filesystem>

namespace tensorperf {

std::filesystem::path user_cache_dir();

}  // namespace tensorperf
