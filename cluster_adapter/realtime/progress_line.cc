#include "cluster_adapter/realtime/progress_line.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace millrace::cluster_adapter {

std::optional<data::Micros> eta(const Progress& progress) {
  if (progress.remaining_predicted <= 0) {
    if (progress.done == progress.total) return data::Micros{0};
    return std::nullopt;
  }
  return progress.remaining_predicted / std::max(progress.slots, 1);
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

std::string render_progress(const Progress& progress) {
  auto left = eta(progress);
  return std::to_string(progress.done) + "/" + std::to_string(progress.total) + " done, " +
         std::to_string(progress.in_flight) + " in flight, " + std::to_string(progress.failed) + " failed, ETA " +
         (left ? render_duration(*left) : "?");
}

ProgressLine::ProgressLine(std::ostream& out, bool enabled) : out_(out), enabled_(enabled) {}

void ProgressLine::update(const Progress& progress) {
  if (!enabled_) return;
  std::string line = render_progress(progress);
  if (line == last_) return;
  out_ << '\r' << line << "\x1b[K" << std::flush;
  last_ = std::move(line);
}

void ProgressLine::finish() {
  if (enabled_ && !last_.empty()) out_ << '\n' << std::flush;
  last_.clear();
}

}  // namespace millrace::cluster_adapter
