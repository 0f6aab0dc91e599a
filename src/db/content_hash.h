// Content hash of a stored record: two records with the same hash are the same record, stored once.
// The hash is the first 16 bytes of SHA-256 over the record's stored line, so hostile input cannot
// make two different lines collide in practice.
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

// A 64-bit FNV-1a hash of the concatenation of `parts`: cheap, stable across builds and
// platforms, not collision resistant (for counting and grouping, never for identity).
uint64_t fnv1a64(std::initializer_list<std::string_view> parts);

// Lower-case hex of raw bytes, for messages and PostgreSQL bytea literals.
std::string to_hex(std::string_view bytes);

}  // namespace tensorperf::db
