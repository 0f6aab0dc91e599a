#include "base/status.h"

namespace tensorperf {

const char* code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid_argument";
    case StatusCode::kNotFound: return "not_found";
    case StatusCode::kIoError: return "io_error";
    case StatusCode::kCorruption: return "corruption";
    case StatusCode::kUnsupported: return "unsupported";
    case StatusCode::kTimeout: return "timeout";
    case StatusCode::kInternal: return "internal";
  }
  return "unknown";
}

}  // namespace tensorperf
