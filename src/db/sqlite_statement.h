// A prepared SQLite statement that finalises itself, with typed binds and column reads, and running
// SQL without results: what the SQLite store and other SQLite files of the project (the feature
// cache) share.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace tensorperf::db {

class SqliteStatement {
 public:
  SqliteStatement() = default;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement() { sqlite3_finalize(s_); }

  Status prepare(sqlite3* db, const char* sql) {
    if (sqlite3_prepare_v2(db, sql, -1, &s_, nullptr) != SQLITE_OK)
      return Status::Internal(std::string("sqlite: cannot prepare a statement: ") + sqlite3_errmsg(db));
    return Status::Ok();
  }
  sqlite3_stmt* get() const { return s_; }
  void reset() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }
  void text(int i, std::string_view v) { sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT); }
  void text_static(int i, std::string_view v) { sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC); }
  void blob(int i, std::string_view v) { sqlite3_bind_blob(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC); }
  void integer(int i, int64_t v) { sqlite3_bind_int64(s_, i, v); }
  void real(int i, double v) { sqlite3_bind_double(s_, i, v); }
  void null(int i) { sqlite3_bind_null(s_, i); }
  std::string_view column_view(int i) const {
    auto* p = reinterpret_cast<const char*>(sqlite3_column_blob(s_, i));
    return p ? std::string_view(p, sqlite3_column_bytes(s_, i)) : std::string_view();
  }
  std::string column_text(int i) const {
    auto* p = reinterpret_cast<const char*>(sqlite3_column_blob(s_, i));
    return p ? std::string(p, sqlite3_column_bytes(s_, i)) : std::string();
  }
  int64_t column_int(int i) const { return sqlite3_column_int64(s_, i); }
  std::optional<double> column_real(int i) const {
    if (sqlite3_column_type(s_, i) == SQLITE_NULL) return std::nullopt;
    return sqlite3_column_double(s_, i);
  }

 private:
  sqlite3_stmt* s_ = nullptr;
};

// Runs `sql` (one or more statements, no results). Internal: `context` followed by SQLite's message.
inline Status sqlite_exec(sqlite3* db, const char* sql, const std::string& context) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db);
    sqlite3_free(err);
    return Status::Internal(context + msg);
  }
  return Status::Ok();
}

}  // namespace tensorperf::db
