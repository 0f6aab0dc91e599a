#include "cli/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace tensorperf::cli {
namespace {

size_t terminal_width(std::FILE* out) {
  winsize ws{};
  if (::ioctl(::fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20) return ws.ws_col;
  return 100;
}

}  // namespace

ProgressBar::ProgressBar(std::FILE* out) : out_(out), tty_(::isatty(::fileno(out)) != 0) {}

std::string ProgressBar::format_duration(double seconds) {
  long s = std::lround(std::max(0.0, seconds));
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof(buf), "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  } else {
    std::snprintf(buf, sizeof(buf), "%ld:%02ld", s / 60, s % 60);
  }
  return buf;
}

std::string ProgressBar::render(int64_t done, int64_t total, double elapsed_s, const std::string& label, size_t width) {
  constexpr int kBar = 20;
  int filled = total > 0 ? static_cast<int>(kBar * done / total) : kBar;
  std::string line(1, '[');
  line.append(filled, '#').append(kBar - filled, '.').append("] ");
  line.append(std::to_string(done)).append("/").append(std::to_string(total));
  line.append("  ").append(format_duration(elapsed_s)).append(" elapsed");
  if (done > 0 && done < total)
    line += "  ETA " + format_duration(elapsed_s * static_cast<double>(total - done) / static_cast<double>(done));
  if (!label.empty()) line += "  " + label;
  if (line.size() > width) line = line.substr(0, width - 3) + "...";
  return line;
}

void ProgressBar::update(int64_t done, int64_t total, const std::string& label) {
  auto now = Clock::now();
  double since_draw = std::chrono::duration<double>(now - last_draw_).count();
  bool last = done >= total;
  if (drawn_ && !last && since_draw < (tty_ ? 0.1 : 10.0)) return;
  double elapsed = std::chrono::duration<double>(now - start_).count();
  size_t width = tty_ ? terminal_width(out_) - 1 : 200;
  std::string line = render(done, total, elapsed, label, width);
  if (tty_) {
    std::fprintf(out_, "\r%s\033[K", line.c_str());
  } else {
    std::fprintf(out_, "%s\n", line.c_str());
  }
  std::fflush(out_);
  last_draw_ = now;
  drawn_ = true;
  finished_ = false;
}

void ProgressBar::finish() {
  if (finished_ || !drawn_) return;
  if (tty_) std::fputc('\n', out_);
  std::fflush(out_);
  finished_ = true;
}

}  // namespace tensorperf::cli
