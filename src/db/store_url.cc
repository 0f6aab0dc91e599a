#include "db/store_url.h"

namespace tensorperf::db {

bool is_postgres_url(std::string_view url) {
  return url.starts_with("postgresql://") || url.starts_with("postgres://");
}

std::string redact_url(std::string_view url) {
  std::string out(url);
  if (!is_postgres_url(url)) return out;
  // postgresql://user:password@host/db?password=...
  size_t scheme = out.find("://") + 3;
  size_t at = out.find('@', scheme);
  size_t slash = out.find('/', scheme);
  if (at != std::string::npos && (slash == std::string::npos || at < slash)) {
    size_t colon = out.find(':', scheme);
    if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
  }
  size_t p = out.find("password=");
  while (p != std::string::npos) {
    size_t end = out.find('&', p);
    if (end == std::string::npos) end = out.size();
    out.replace(p + 9, end - p - 9, "***");
    p = out.find("password=", p + 12);
  }
  return out;
}

}  // namespace tensorperf::db
