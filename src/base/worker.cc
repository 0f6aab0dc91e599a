#include "base/worker.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <vector>

namespace tensorperf {
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

// Closes every descriptor but stdin, stdout, stderr and `keep`: a worker must not hold the pipes of
// its siblings (a sibling waiting for its parent to close its control socket would wait forever).
void close_inherited(std::initializer_list<int> keep) {
  std::vector<int> open_fds;
  if (DIR* d = ::opendir("/proc/self/fd")) {
    const int own = ::dirfd(d);
    while (dirent* e = ::readdir(d)) {
      if (e->d_name[0] == '.') continue;
      int fd = std::atoi(e->d_name);
      if (fd > 2 && fd != own && std::find(keep.begin(), keep.end(), fd) == keep.end()) open_fds.push_back(fd);
    }
    ::closedir(d);
  }
  for (int fd : open_fds) ::close(fd);
}

[[noreturn]] void child(pid_t parent, int msg_fd, int out_fd, int ctl_fd, const Worker::Body& body) {
  // A worker dies with the process that started it (even while stopped), so none is left behind.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);
  close_inherited({msg_fd, out_fd, ctl_fd});
  // Tell start() that the above is done: only then may the parent stop this worker (a worker
  // stopped before it asked for PDEATHSIG would outlive a parent that dies).
  const char ready = 'r';
  while (::write(ctl_fd, &ready, 1) < 0 && errno == EINTR) {
  }
  ::dup2(out_fd, STDOUT_FILENO);
  ::dup2(out_fd, STDERR_FILENO);
  ::close(out_fd);
  // A crashing kernel ends the worker with its signal, which is how the parent classifies it: undo
  // any handler the process installed (a sanitizer's, which would turn the signal into exit 1).
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);
  SendFn send = [msg_fd](const nlohmann::json& j) { write_all(msg_fd, j.dump() + "\n"); };
  ReceiveFn receive = [ctl_fd]() -> int {
    unsigned char c;
    while (true) {
      ssize_t n = ::read(ctl_fd, &c, 1);
      if (n == 1) return c;
      if (n < 0 && errno == EINTR) continue;
      return -1;
    }
  };
  try {
    body(send, receive);
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

void make_pipe(int fds[2]) {
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
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

std::unique_ptr<Worker> Worker::start(const Body& body) {
  int msg[2], out[2], ctl[2];
  make_pipe(msg);
  make_pipe(out);
  // The control channel is a socket so that a byte sent to a child that has exited is an error
  // (MSG_NOSIGNAL), not a SIGPIPE in the caller.
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ctl) != 0)
    throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
  std::fflush(nullptr);  // or the child would inherit, and later flush, the caller's buffered output
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) child(parent, msg[1], out[1], ctl[0], body);
  ::close(msg[1]);
  ::close(out[1]);
  ::close(ctl[0]);
  char ready = 0;  // 0 bytes read: the child died first; its pipes tell the rest
  while (::read(ctl[1], &ready, 1) < 0 && errno == EINTR) {
  }
  std::unique_ptr<Worker> w(new Worker());
  w->pid_ = pid;
  w->msg_fd_ = msg[0];
  w->out_fd_ = out[0];
  w->ctl_fd_ = ctl[1];
  w->open_[0] = w->open_[1] = true;
  return w;
}

Worker::~Worker() {
  if (!reaped_) finish(/*kill=*/true);
}

size_t Worker::read(int fd) {
  const int i = fd == msg_fd_ ? 0 : 1;
  if (!open_[i]) return 0;
  char buf[65536];
  ssize_t got = ::read(fd, buf, sizeof(buf));
  if (got < 0 && errno == EINTR) return 0;
  if (got <= 0) {
    open_[i] = false;
    return 0;
  }
  if (i == 1) {
    outcome_.output_tail.append(buf, static_cast<size_t>(got));
    if (outcome_.output_tail.size() > kTailBytes) outcome_.output_tail.erase(0, outcome_.output_tail.size() - kTailBytes);
    return 0;
  }
  size_t completed = 0;
  pending_.append(buf, static_cast<size_t>(got));
  for (size_t nl; (nl = pending_.find('\n')) != std::string::npos;) {
    nlohmann::json j = nlohmann::json::parse(pending_.substr(0, nl), nullptr, /*allow_exceptions=*/false);
    pending_.erase(0, nl + 1);
    if (!j.is_discarded()) {
      outcome_.messages.push_back(std::move(j));
      ++completed;
    }
  }
  return completed;
}

bool Worker::signal(char byte) {
  if (ctl_fd_ < 0) return false;
  while (true) {
    ssize_t n = ::send(ctl_fd_, &byte, 1, MSG_NOSIGNAL);
    if (n == 1) return true;
    if (n < 0 && errno == EINTR) continue;
    return false;
  }
}

void Worker::stop() {
  if (!reaped_) ::kill(pid_, SIGSTOP);
}

void Worker::resume() {
  if (!reaped_) ::kill(pid_, SIGCONT);
}

WorkerOutcome Worker::finish(bool kill) {
  // No more signals: a child waiting in receive() gets -1 and ends.
  if (ctl_fd_ >= 0) {
    ::close(ctl_fd_);
    ctl_fd_ = -1;
  }
  if (kill) {
    ::kill(pid_, SIGKILL);
  } else {
    // Drain what the child still writes until it closes its pipes (it is exiting).
    while (!closed()) {
      pollfd fds[2] = {{message_fd(), POLLIN, 0}, {output_fd(), POLLIN, 0}};
      int n = ::poll(fds, 2, -1);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      for (const pollfd& p : fds)
        if (p.fd >= 0 && (p.revents & (POLLIN | POLLHUP | POLLERR))) read(p.fd);
    }
  }
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  for (int fd : {msg_fd_, out_fd_, ctl_fd_})
    if (fd >= 0) ::close(fd);
  open_[0] = open_[1] = false;
  msg_fd_ = out_fd_ = ctl_fd_ = -1;
  while (!outcome_.output_tail.empty() && (outcome_.output_tail.back() == '\n' || outcome_.output_tail.back() == ' '))
    outcome_.output_tail.pop_back();
  if (kill) {
    outcome_.ending = WorkerOutcome::Ending::kTimedOut;
  } else if (WIFSIGNALED(status)) {
    outcome_.ending = WorkerOutcome::Ending::kSignaled;
    outcome_.signal = WTERMSIG(status);
  } else {
    outcome_.ending = WorkerOutcome::Ending::kExited;
    outcome_.exit_code = WEXITSTATUS(status);
  }
  return std::move(outcome_);
}

WorkerOutcome run_worker(const std::function<void(const SendFn&)>& body, const std::vector<double>& timeouts_s) {
  std::unique_ptr<Worker> w = Worker::start([&](const SendFn& send, const ReceiveFn&) { body(send); });
  auto limit_s = [&] {
    if (timeouts_s.empty()) return 1e9;
    return timeouts_s[std::min(w->messages().size(), timeouts_s.size() - 1)];
  };
  auto phase_start = Clock::now();
  while (!w->closed()) {
    double left_s = limit_s() - std::chrono::duration<double>(Clock::now() - phase_start).count();
    if (left_s <= 0) return w->finish(/*kill=*/true);
    pollfd fds[2] = {{w->message_fd(), POLLIN, 0}, {w->output_fd(), POLLIN, 0}};
    int wait_ms = static_cast<int>(std::min(left_s * 1e3 + 1, 1e9));
    int n = ::poll(fds, 2, wait_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    for (const pollfd& p : fds)
      if (p.fd >= 0 && (p.revents & (POLLIN | POLLHUP | POLLERR)) && w->read(p.fd) > 0) phase_start = Clock::now();
  }
  return w->finish(/*kill=*/false);
}

}  // namespace tensorperf
