// The progress line of the CLI's long commands (fit, compare, plan, import) on a terminal:
// "compare: 120/480 simulations (25%), 4s elapsed, ETA 12s", redrawn in place
// (cluster_adapter/realtime/terminal_line.h) on stderr when stderr is a terminal and the command
// was not given --quiet, and nothing otherwise, so logs and pipes stay clean. The ETA spreads
// the time elapsed over the share done; the line is redrawn at most every 100 ms, and always at
// the end.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

#include "cluster_adapter/realtime/terminal_line.h"
#include "data/progress.h"
#include "data/time.h"

namespace millrace::cli {

// "LABEL: done/total UNIT (P%), E elapsed, ETA T"; a unit of "bytes" is shown in MiB.
std::string render_task_progress(const std::string& label, const std::string& unit, std::int64_t done,
                                 std::int64_t total, data::Micros elapsed);

class ProgressDisplay {
 public:
  using Clock = std::function<data::Micros()>;  // a steady clock, microseconds

  // Draws on `out` only when `enabled`; the clock is injected for tests.
  ProgressDisplay(std::ostream& out, bool enabled, Clock clock);
  // On stderr when progress_wanted(quiet), with the steady clock.
  explicit ProgressDisplay(bool quiet);
  ~ProgressDisplay();

  // A report drawing what it is told as the work `label` counted in `unit` (not to be used from
  // two threads at once); none when the display is not enabled. The elapsed time runs from this
  // call; a later report (the next phase of the work) replaces the earlier one's line.
  data::ProgressReport report(std::string label, std::string unit);
  // The label of what the report draws next (a plan's worker count under evaluation).
  void relabel(std::string label) { label_ = std::move(label); }
  // Ends the line (when one was drawn) so that later output starts on a fresh one.
  void finish();

 private:
  cluster_adapter::TerminalLine line_;
  Clock clock_;
  data::Micros started_;
  data::Micros last_drawn_;
  std::string label_;
  std::string unit_;
};

// Whether a command shows its progress line: stderr is a terminal and not --quiet.
bool progress_wanted(bool quiet);

// Adds --quiet (no progress line) to a command.
void add_quiet_flag(CLI::App* command, bool& quiet);

}  // namespace millrace::cli
