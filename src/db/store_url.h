// Where a record store lives: a SQLite file path or a PostgreSQL URL.
#pragma once

#include <string>
#include <string_view>

namespace tensorperf::db {

inline constexpr std::string_view kDefaultStoreUrl = "tensorperf.db";

bool is_postgres_url(std::string_view url);

// The URL with any password replaced by "***", for messages.
std::string redact_url(std::string_view url);

}  // namespace tensorperf::db
