// The progress line render draws on a terminal.
#pragma once

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace spritz {

// The progress line on a terminal: bar, frame count, rate and ETA, redrawn in
// place at most ten times a second and cut to the terminal's width (a line
// that wraps cannot be redrawn with \r).
class Progress {
 public:
  Progress(bool enabled, uint64_t total) : enabled_(enabled), total_(total) {}
  void add_total(uint64_t n) { total_ += n; }
  void update(uint64_t done, double elapsed_s) {
    if (!enabled_) return;
    // At most ten redraws a second (and always the last one).
    if (done < total_ && elapsed_s - last_draw_s_ < 0.1) return;
    last_draw_s_ = elapsed_s;
    const double fps = elapsed_s > 0 ? static_cast<double>(done) / elapsed_s : 0;
    const double eta = fps > 0 && total_ >= done ? static_cast<double>(total_ - done) / fps : 0;
    char text[160];
    // Fixed widths for the frame count and rate, so the line does not jitter.
    const int digits = static_cast<int>(std::to_string(total_).size());
    // Under a frame a second, seconds per frame ("0.0 fps" says nothing).
    char rate[32];
    if (done == 0 || fps >= 1)
      std::snprintf(rate, sizeof rate, "%6.1f fps", fps);
    else
      std::snprintf(rate, sizeof rate, "%6s/frame",
                    duration_text(elapsed_s / static_cast<double>(done)).c_str());
    std::snprintf(text, sizeof text, " %*llu/%llu frames %s  ETA %-6s", digits,
                  static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_),
                  rate, duration_text(eta).c_str());
    std::fprintf(stderr, "\r%s\033[K", progress_line(text, terminal_columns(), done).c_str());
    std::fflush(stderr);
  }
  // Clears the line, so that a message printed next starts on a clean line.
  void clear() {
    if (enabled_) std::fprintf(stderr, "\r\033[K");
  }
  void finish() { clear(); }

 private:
  // "[####....] text" fitted to `columns` - 1 characters: the bar shrinks,
  // then goes, then the text is cut.
  std::string progress_line(const std::string& text, int columns, uint64_t done) const {
    const int room = std::max(1, columns - 1);
    const int bar_width = std::min(24, room - static_cast<int>(text.size()) - 2);
    std::string line;
    if (bar_width >= 5) {
      const int filled =
          total_
              ? static_cast<int>(static_cast<uint64_t>(bar_width) * std::min(done, total_) / total_)
              : bar_width;
      line = "[" + std::string(static_cast<size_t>(filled), '#') +
             std::string(static_cast<size_t>(bar_width - filled), '.') + "]";
    }
    line += text;
    if (static_cast<int>(line.size()) > room) line.resize(static_cast<size_t>(room));
    return line;
  }

  // 4.2s, 12m05s, 3h07m.
  static std::string duration_text(double s) {
    char buf[32];
    if (!(s < 60)) {
      const long long total = std::llround(std::min(s, 3.6e9));
      if (total < 3600)
        std::snprintf(buf, sizeof buf, "%lldm%02llds", total / 60, total % 60);
      else
        std::snprintf(buf, sizeof buf, "%lldh%02lldm", total / 3600, total / 60 % 60);
    } else {
      std::snprintf(buf, sizeof buf, "%.1fs", s);
    }
    return buf;
  }

  static int terminal_columns() {
    winsize ws{};
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    return 80;
  }

  bool enabled_;
  uint64_t total_;
  double last_draw_s_ = -1;
};

}  // namespace spritz
