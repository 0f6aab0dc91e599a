// A progress line on stderr for long commands: bar, done/total, elapsed, ETA and a label, e.g.
//   [########............] 12/40  0:31 elapsed  ETA 1:12  task 3/26 conv2d|float32[1,64,56,56]...
// On a terminal the line is redrawn in place (at most 10 times a second); otherwise a plain line is
// printed at most every 10 seconds and at the end, so logs stay short.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace tensorperf::cli {

class ProgressBar {
 public:
  explicit ProgressBar(std::FILE* out = stderr);
  ~ProgressBar() { finish(); }

  // REQUIRES: 0 <= done <= total.
  void update(int64_t done, int64_t total, const std::string& label);
  // Ends the progress line (idempotent).
  void finish();

  // "1:05", "1:02:03".
  static std::string format_duration(double seconds);
  // The line update() draws, without redraw control; public for tests.
  static std::string render(int64_t done, int64_t total, double elapsed_s, const std::string& label, size_t width);

 private:
  using Clock = std::chrono::steady_clock;
  std::FILE* out_;
  bool tty_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_draw_{};
  bool drawn_ = false;
  bool finished_ = false;
};

}  // namespace tensorperf::cli
