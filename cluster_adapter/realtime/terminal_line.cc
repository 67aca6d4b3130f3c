#include "cluster_adapter/realtime/terminal_line.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace millrace::cluster_adapter {

TerminalLine::TerminalLine(std::ostream& out, bool enabled) : out_(out), enabled_(enabled) {}

void TerminalLine::show(const std::string& text) {
  if (!enabled_ || text == last_) return;
  out_ << '\r' << text << "\x1b[K" << std::flush;
  last_ = text;
}

void TerminalLine::finish() {
  if (enabled_ && !last_.empty()) out_ << '\n' << std::flush;
  last_.clear();
}

std::string render_duration(data::Micros duration) {
  std::int64_t seconds = (std::max<data::Micros>(duration, 0) + data::kMicrosPerSecond - 1) / data::kMicrosPerSecond;
  char text[32];
  if (seconds < 60) {
    std::snprintf(text, sizeof text, "%llds", static_cast<long long>(seconds));
  } else if (seconds < 3600) {
    std::snprintf(text, sizeof text, "%lldm%02llds", static_cast<long long>(seconds / 60),
                  static_cast<long long>(seconds % 60));
  } else {
    std::snprintf(text, sizeof text, "%lldh%02lldm", static_cast<long long>(seconds / 3600),
                  static_cast<long long>(seconds % 3600 / 60));
  }
  return text;
}

}  // namespace millrace::cluster_adapter
