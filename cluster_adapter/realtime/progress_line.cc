#include "cluster_adapter/realtime/progress_line.h"

#include <algorithm>

namespace millrace::cluster_adapter {

std::optional<data::Micros> eta(const Progress& progress) {
  if (progress.band) return progress.band->expected;
  if (progress.remaining_predicted <= 0) {
    if (progress.done == progress.total) return data::Micros{0};
    return std::nullopt;
  }
  return progress.remaining_predicted / std::max(progress.slots, 1);
}

std::string render_progress(const Progress& progress) {
  auto left = eta(progress);
  return std::to_string(progress.done) + "/" + std::to_string(progress.total) + " done, " +
         std::to_string(progress.in_flight) + " in flight, " + std::to_string(progress.failed) + " failed, ETA " +
         (left ? render_duration(*left) : "?") +
         (progress.band && progress.band->outside_model ? " (" + progress.band->note() + ")" : "");
}

ProgressLine::ProgressLine(std::ostream& out, bool enabled) : line_(out, enabled) {}

void ProgressLine::update(const Progress& progress) {
  if (line_.enabled()) line_.show(render_progress(progress));
}

void ProgressLine::finish() { line_.finish(); }

}  // namespace millrace::cluster_adapter
