// A forked worker process: runs a function in a fresh child and collects the JSON messages it sends,
// with a time limit per message. A crash, hang or exit in the child ends only the child. Private to
// measure/ (the runner uses it for compiling and running candidates, and for reference outputs).
//
// Fork safety: the child is a copy of a single thread of the caller. Anything it uses that keeps
// threads or locks (Halide's JIT and thread pool, OpenMP) must not have been started in the caller.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tensorperf::measure {

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

// Forks, runs body(send) in the child (its stdout and stderr captured), then _exits the child.
// timeouts_s[i] limits the wait for message i (measured from the previous message, or from the
// fork); waits after the last listed limit use the last one. The child is killed on a timeout.
WorkerOutcome run_worker(const std::function<void(const SendFn& send)>& body, const std::vector<double>& timeouts_s);

}  // namespace tensorperf::measure
