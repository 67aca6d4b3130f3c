// The one-line progress display of a real run on a terminal: items done out of the total, in
// flight, failures and an ETA from the predicted durations of the work left, redrawn in place
// on a TerminalLine (terminal_line.h: only when the output is a terminal).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "cluster_adapter/realtime/remaining_work.h"
#include "cluster_adapter/realtime/terminal_line.h"
#include "data/time.h"

namespace millrace::cluster_adapter {

struct Progress {
  std::int64_t done = 0;               // items settled (succeeded or given up)
  std::int64_t total = 0;
  std::int64_t in_flight = 0;
  std::int64_t failed = 0;             // items given up
  data::Micros remaining_predicted = 0;  // predicted work of the items not done, 0: unknown
  int slots = 1;                       // attempts that run at once
  std::optional<EtaBand> band;         // the learning ETA (remaining_work.h); without it, predictions alone
};

// ETA: the band's expected time when given, else the remaining predicted work spread over the
// slots; none when nothing is predicted.
std::optional<data::Micros> eta(const Progress& progress);
// "12/200 done, 4 in flight, 1 failed, ETA 3m12s" (ETA "?" when unknown), with the band's note
// when the run is outside the model: "..., ETA 20s (ranges run 0.10x the model)".
std::string render_progress(const Progress& progress);

class ProgressLine {
 public:
  // Draws on `out` only when `enabled` (usually isatty(STDOUT_FILENO)).
  ProgressLine(std::ostream& out, bool enabled);
  void update(const Progress& progress);
  // Ends the line so later output starts on a fresh one.
  void finish();

 private:
  TerminalLine line_;
};

}  // namespace millrace::cluster_adapter
