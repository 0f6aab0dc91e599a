// A whole file's bytes, with one-line errors that name the file.
#pragma once

#include <string>

#include "base/status.h"

namespace tensorperf {

// Errors: NotFound (no such file), IoError (a directory, or open / read refused, with the reason).
Result<std::string> read_file(const std::string& path);

}  // namespace tensorperf
