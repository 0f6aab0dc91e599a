#include "measure/worker.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace tensorperf::measure {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kTailBytes = 2048;

void write_all(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone; nothing left to report to
    done += static_cast<size_t>(n);
  }
}

[[noreturn]] void child(int msg_fd, int out_fd, const std::function<void(const SendFn&)>& body) {
  ::dup2(out_fd, STDOUT_FILENO);
  ::dup2(out_fd, STDERR_FILENO);
  ::close(out_fd);
  SendFn send = [msg_fd](const nlohmann::json& j) { write_all(msg_fd, j.dump() + "\n"); };
  try {
    body(send);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "uncaught exception: %s\n", e.what());
    std::fflush(stderr);
    ::_exit(3);
  }
  std::fflush(stdout);
  std::fflush(stderr);
  // _exit: no atexit handlers or static destructors of the parent's copy run in the child.
  ::_exit(0);
}

}  // namespace

std::string WorkerOutcome::describe() const {
  std::string what;
  switch (ending) {
    case Ending::kExited:
      what = "worker exited with status " + std::to_string(exit_code);
      break;
    case Ending::kSignaled:
      what = "worker killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
      break;
    case Ending::kTimedOut:
      what = "worker timed out and was killed";
      break;
  }
  if (!output_tail.empty()) what += "; its output ends: " + output_tail;
  return what;
}

WorkerOutcome run_worker(const std::function<void(const SendFn&)>& body, const std::vector<double>& timeouts_s) {
  int msg[2], out[2];
  if (::pipe2(msg, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::fflush(nullptr);  // or the child would inherit, and later flush, the caller's buffered output
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(msg[0]);
    ::close(out[0]);
    child(msg[1], out[1], body);
  }
  ::close(msg[1]);
  ::close(out[1]);

  WorkerOutcome outcome;
  std::string pending;  // message bytes after the last newline
  pollfd fds[2] = {{msg[0], POLLIN, 0}, {out[0], POLLIN, 0}};
  bool open[2] = {true, true};
  auto limit_s = [&] {
    if (timeouts_s.empty()) return 1e9;
    return timeouts_s[std::min(outcome.messages.size(), timeouts_s.size() - 1)];
  };
  auto phase_start = Clock::now();
  bool timed_out = false;
  while (open[0] || open[1]) {
    double left_s = limit_s() - std::chrono::duration<double>(Clock::now() - phase_start).count();
    if (left_s <= 0) {
      timed_out = true;
      break;
    }
    for (int i = 0; i < 2; ++i) fds[i].fd = open[i] ? (i == 0 ? msg[0] : out[0]) : -1;
    int wait_ms = static_cast<int>(std::min(left_s * 1e3 + 1, 1e9));
    int n = ::poll(fds, 2, wait_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    char buf[65536];
    for (int i = 0; i < 2; ++i) {
      if (!open[i] || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = ::read(fds[i].fd, buf, sizeof(buf));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        open[i] = false;
        continue;
      }
      if (i == 1) {
        outcome.output_tail.append(buf, static_cast<size_t>(got));
        if (outcome.output_tail.size() > kTailBytes)
          outcome.output_tail.erase(0, outcome.output_tail.size() - kTailBytes);
        continue;
      }
      pending.append(buf, static_cast<size_t>(got));
      for (size_t nl; (nl = pending.find('\n')) != std::string::npos;) {
        nlohmann::json j = nlohmann::json::parse(pending.substr(0, nl), nullptr, /*allow_exceptions=*/false);
        pending.erase(0, nl + 1);
        if (!j.is_discarded()) outcome.messages.push_back(std::move(j));
        phase_start = Clock::now();
      }
    }
  }
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::close(msg[0]);
  ::close(out[0]);
  while (!outcome.output_tail.empty() && (outcome.output_tail.back() == '\n' || outcome.output_tail.back() == ' '))
    outcome.output_tail.pop_back();
  if (timed_out) {
    outcome.ending = WorkerOutcome::Ending::kTimedOut;
  } else if (WIFSIGNALED(status)) {
    outcome.ending = WorkerOutcome::Ending::kSignaled;
    outcome.signal = WTERMSIG(status);
  } else {
    outcome.ending = WorkerOutcome::Ending::kExited;
    outcome.exit_code = WEXITSTATUS(status);
  }
  return outcome;
}

}  // namespace tensorperf::measure
