#include "base/cache_dir.h"

#include <cstdlib>

namespace tensorperf {

std::filesystem::path user_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0')
    return std::filesystem::path(xdg) / "tensorperf";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    return std::filesystem::path(home) / ".cache" / "tensorperf";
  return std::filesystem::temp_directory_path() / "tensorperf-cache";
}

}  // namespace tensorperf
