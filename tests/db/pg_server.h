// A real, throwaway PostgreSQL 15 server for tests and benchmarks: initdb into a fresh temp dir,
// pg_ctl start listening on a unix socket in that dir and a free TCP port on 127.0.0.1 (trust
// authentication, fsync off), stopped and removed when the object dies. As root, the server runs
// as the `postgres` OS user (initdb refuses root). Never a mock: a server that cannot start is an
// error for the caller to FAIL on.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"

namespace tensorperf::testing {

class PgServer {
 public:
  // REQUIRES: PostgreSQL 15 server binaries in /usr/lib/postgresql/15/bin (scripts/install_deps.sh).
  static Result<std::unique_ptr<PgServer>> start();
  ~PgServer();
  PgServer(const PgServer&) = delete;
  PgServer& operator=(const PgServer&) = delete;

  int port() const { return port_; }
  const std::string& socket_dir() const { return dir_; }
  // postgresql://postgres@127.0.0.1:PORT/DATABASE
  std::string url(const std::string& database = "postgres") const;
  // Creates an empty database and returns its URL. `name` is a plain identifier ([a-z0-9_]).
  Result<std::string> create_database(const std::string& name);

 private:
  PgServer() = default;
  std::string dir_;  // temp dir: data/, server log, unix socket
  int port_ = 0;
  bool as_postgres_user_ = false;
  bool running_ = false;
};

// One server per process, started on first call, stopped at exit. Returns the start error, if any,
// on every call.
Result<PgServer*> shared_pg_server();

}  // namespace tensorperf::testing
