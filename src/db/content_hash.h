// Content hash of a stored record: two records with the same hash are the same record, stored once.
// The hash is the first 16 bytes of SHA-256 over the record's stored line, so hostile input cannot
// make two different lines collide in practice. (The SQLite store keys records by the first 8 of
// them; see sqlite_store.cc.)
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace tensorperf::db {

inline constexpr size_t kContentHashBytes = 16;

// 16 raw bytes (not hex).
std::string content_hash(std::string_view bytes);
// The hash of the concatenation of `parts`, written into `out` (reusing its buffer).
void content_hash_into(std::initializer_list<std::string_view> parts, std::string& out);

// Which config a record has, as a 64-bit XXH3 of its provider and its compact config: cheap and
// stable across builds and platforms, not collision resistant (for counting configs, never for
// identity).
uint64_t config_key(std::string_view provider, std::string_view config);

// Lower-case hex of raw bytes, for messages and PostgreSQL bytea literals.
std::string to_hex(std::string_view bytes);

}  // namespace tensorperf::db
