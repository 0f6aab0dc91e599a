// Where a record store lives: a SQLite file path or a PostgreSQL URL, and how a URL's secrets are
// kept out of every message.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tensorperf::db {

inline constexpr std::string_view kDefaultStoreUrl = "tensorperf.db";

bool is_postgres_url(std::string_view url);

// The secrets a PostgreSQL URL carries, as written and percent-decoded: the password of its
// userinfo (everything between the first ':' and the last '@' before the host) and the value of
// every `password=` query parameter. Empty for a path or a URL without them.
std::vector<std::string> url_secrets(std::string_view url);

// The URL with every secret replaced by "***", for messages. Whatever the URL's shape (a stray '%',
// an '@' in the password, a `?password=`), the result contains none of url_secrets(url).
std::string redact_url(std::string_view url);

// `message` (e.g. from libpq, which may quote the URL or a piece of it) with every secret of `url`,
// and the URL itself, replaced: what may reach a user.
std::string scrub_secrets(std::string message, std::string_view url);

}  // namespace tensorperf::db
