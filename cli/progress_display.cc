#include "cli/progress_display.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "cli/help_layout.h"

namespace millrace::cli {

namespace {

constexpr data::Micros kRedrawEvery = 100 * data::kMicrosPerMilli;

data::Micros steady_micros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string count_text(std::int64_t value, const std::string& unit) {
  if (unit != "bytes") return std::to_string(value);
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", static_cast<double>(value) / (1 << 20));
  return text;
}

}  // namespace

std::string render_task_progress(const std::string& label, const std::string& unit, std::int64_t done,
                                 std::int64_t total, data::Micros elapsed) {
  std::string text = label + ": " + count_text(done, unit) + "/" + count_text(total, unit) + " " +
                     (unit == "bytes" ? "MiB" : unit);
  if (total <= 0) return text + ", " + cluster_adapter::render_duration(elapsed) + " elapsed";
  const double share = static_cast<double>(done) / static_cast<double>(total);
  text += " (" + std::to_string(static_cast<int>(100 * share)) + "%), " + cluster_adapter::render_duration(elapsed) +
          " elapsed, ETA ";
  if (done <= 0) return text + "?";
  const double left = static_cast<double>(elapsed) * (1 - share) / share;
  return text + cluster_adapter::render_duration(static_cast<data::Micros>(left));
}

ProgressDisplay::ProgressDisplay(std::ostream& out, bool enabled, Clock clock)
    : line_(out, enabled), clock_(std::move(clock)), started_(clock_()), last_drawn_(started_ - kRedrawEvery) {}

ProgressDisplay::ProgressDisplay(bool quiet) : ProgressDisplay(std::cerr, progress_wanted(quiet), steady_micros) {}

ProgressDisplay::~ProgressDisplay() { finish(); }

data::ProgressReport ProgressDisplay::report(std::string label, std::string unit) {
  if (!line_.enabled()) return {};
  label_ = std::move(label);
  unit_ = std::move(unit);
  started_ = clock_();  // the elapsed time and ETA of this work, not of what the command did before
  last_drawn_ = started_ - kRedrawEvery;
  return [this](std::int64_t done, std::int64_t total) {
    const data::Micros now = clock_();
    if (done < total && now - last_drawn_ < kRedrawEvery) return;
    last_drawn_ = now;
    line_.show(render_task_progress(label_, unit_, done, total, now - started_));
  };
}

void ProgressDisplay::finish() { line_.finish(); }

bool progress_wanted(bool quiet) { return !quiet && isatty(STDERR_FILENO) == 1; }

void add_quiet_flag(CLI::App* command, bool& quiet) {
  command->add_flag("--quiet", quiet, "No progress line on the terminal")->group(kOutputGroup);
}

}  // namespace millrace::cli
