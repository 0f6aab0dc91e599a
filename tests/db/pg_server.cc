#include "pg_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <pqxx/pqxx>

namespace tensorperf::testing {
namespace {

constexpr const char* kBinDir = "/usr/lib/postgresql/15/bin/";

// Runs argv (as `postgres` when `as_postgres`), returns its exit status; output goes to `log`.
int run(const std::vector<std::string>& argv, bool as_postgres, const std::string& log) {
  std::vector<std::string> full;
  if (as_postgres) full = {"/usr/sbin/runuser", "-u", "postgres", "--"};
  full.insert(full.end(), argv.begin(), argv.end());
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    FILE* f = std::fopen(log.c_str(), "a");
    if (f) {
      dup2(fileno(f), STDOUT_FILENO);
      dup2(fileno(f), STDERR_FILENO);
    }
    std::vector<char*> args;
    for (auto& a : full) args.push_back(a.data());
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

std::string tail_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  return s.size() > 2000 ? s.substr(s.size() - 2000) : s;
}

}  // namespace

Result<std::unique_ptr<PgServer>> PgServer::start() {
  std::unique_ptr<PgServer> server(new PgServer());
  char tmpl[] = "/tmp/tensorperf-pg-XXXXXX";
  if (!mkdtemp(tmpl)) return Status::IoError("cannot create a temp dir for PostgreSQL");
  server->dir_ = tmpl;
  server->as_postgres_user_ = geteuid() == 0;
  if (server->as_postgres_user_) {
    passwd* pw = getpwnam("postgres");
    if (!pw) return Status::NotFound("running as root but there is no `postgres` user; run scripts/install_deps.sh");
    if (chown(tmpl, pw->pw_uid, pw->pw_gid) != 0) return Status::IoError("cannot chown the PostgreSQL temp dir");
  }
  const std::string data = server->dir_ + "/data";
  const std::string log = server->dir_ + "/server.log";
  if (server->as_postgres_user_) {
    std::ofstream(log).flush();
    passwd* pw = getpwnam("postgres");
    if (chown(log.c_str(), pw->pw_uid, pw->pw_gid) != 0) return Status::IoError("cannot chown the server log");
  }
  if (run({std::string(kBinDir) + "initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"},
          server->as_postgres_user_, log) != 0)
    return Status::Internal("initdb failed: " + tail_of(log));
  for (int attempt = 0; attempt < 5 && !server->running_; ++attempt) {
    server->port_ = free_port();
    std::string opts = "-k " + server->dir_ + " -p " + std::to_string(server->port_) +
                       " -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100";
    if (run({std::string(kBinDir) + "pg_ctl", "-D", data, "-l", log, "-w", "-t", "60", "-o", opts, "start"},
            server->as_postgres_user_, log) == 0)
      server->running_ = true;
  }
  if (!server->running_) return Status::Internal("pg_ctl start failed: " + tail_of(log));
  return server;
}

PgServer::~PgServer() {
  if (running_)
    run({std::string(kBinDir) + "pg_ctl", "-D", dir_ + "/data", "-m", "immediate", "-w", "stop"}, as_postgres_user_,
        "/dev/null");
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

std::string PgServer::url(const std::string& database) const {
  return "postgresql://postgres@127.0.0.1:" + std::to_string(port_) + "/" + database;
}

Result<std::string> PgServer::create_database(const std::string& name) {
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
      return Status::InvalidArgument("database name must be [a-z0-9_]: " + name);
  try {
    pqxx::connection conn(url());
    pqxx::nontransaction nt(conn);
    nt.exec("DROP DATABASE IF EXISTS " + name);
    nt.exec("CREATE DATABASE " + name);
  } catch (const std::exception& e) {
    return Status::Internal(std::string("cannot create database ") + name + ": " + e.what());
  }
  return url(name);
}

Result<PgServer*> shared_pg_server() {
  static Result<std::unique_ptr<PgServer>> server = PgServer::start();
  if (!server.ok()) return server.status();
  return server.value().get();
}

}  // namespace tensorperf::testing
