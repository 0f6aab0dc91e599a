// A forked worker process: runs a function in a fresh child and collects the JSON messages it sends,
// with a time limit per message. A crash, hang or exit in the child ends only the child. The
// measurement runner compiles and runs candidates in workers; feature extraction lowers Halide
// programs in one (a crash of Halide's simplifier costs that program, not the process).
//
// Fork safety: the child is a copy of a single thread of the caller. Anything it uses that keeps
// threads or locks (Halide's JIT and thread pool, OpenMP) must not have been started in the caller.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tensorperf {

struct WorkerOutcome {
  enum class Ending { kExited, kSignaled, kTimedOut };
  std::vector<nlohmann::json> messages;  // as sent, in order
  Ending ending = Ending::kExited;
  int exit_code = 0;        // kExited
  int signal = 0;           // kSignaled
  std::string output_tail;  // the last 2 KiB the child wrote to stdout and stderr

  // "killed by SIGSEGV (Segmentation fault)", "exited with status 3", "timed out"; then the output tail.
  std::string describe() const;
};

using SendFn = std::function<void(const nlohmann::json&)>;
// In the child: blocks until the parent sends a byte (Worker::signal) and returns it; -1 when the
// parent closed its end (it is gone or gave the worker up).
using ReceiveFn = std::function<int()>;

// Forks, runs body(send) in the child (its stdout and stderr captured), then _exits the child.
// timeouts_s[i] limits the wait for message i (measured from the previous message, or from the
// fork); waits after the last listed limit use the last one. The child is killed on a timeout.
WorkerOutcome run_worker(const std::function<void(const SendFn& send)>& body, const std::vector<double>& timeouts_s);

// A worker the caller drives while it does other things (several at once): it polls the worker's
// pipes, reads what arrived, can send the child a byte, stop and continue it, and reaps it. Not
// thread-safe; the destructor kills and reaps a child that is still running. A worker holds no
// descriptor of the caller's but its own pipes, and is killed when the thread that started it ends
// (PR_SET_PDEATHSIG), stopped or not, so a killed caller leaves no worker behind.
class Worker {
 public:
  using Body = std::function<void(const SendFn& send, const ReceiveFn& receive)>;
  static std::unique_ptr<Worker> start(const Body& body);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  int pid() const { return pid_; }
  // The pipes to poll for POLLIN; -1 once closed.
  int message_fd() const { return open_[0] ? msg_fd_ : -1; }
  int output_fd() const { return open_[1] ? out_fd_ : -1; }
  // Reads what `fd` (one of the two above) has; returns how many new messages it completed.
  size_t read(int fd);
  bool closed() const { return !open_[0] && !open_[1]; }
  const std::vector<nlohmann::json>& messages() const { return outcome_.messages; }

  // Sends one byte to the child's ReceiveFn; false when the child is gone.
  bool signal(char byte);
  void stop();    // SIGSTOP: it keeps its state but uses no CPU
  void resume();  // SIGCONT
  // Closes the control channel (a child waiting in receive() gets -1), kills the child when `kill`
  // (a timeout), waits for it and returns how it ended, with every message read. REQUIRES: called
  // once.
  WorkerOutcome finish(bool kill);

 private:
  Worker() = default;
  int pid_ = -1, msg_fd_ = -1, out_fd_ = -1, ctl_fd_ = -1;
  bool open_[2] = {false, false};
  bool reaped_ = false;
  std::string pending_;
  WorkerOutcome outcome_;
};

}  // namespace tensorperf
