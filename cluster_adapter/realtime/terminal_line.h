// One line of text redrawn in place on a terminal ("\r", the text, clear-to-end-of-line), for
// progress displays: a real run's (progress_line.h) and the CLI's long commands' (fit, compare,
// plan, import: cli/progress_display.h). Drawn only when enabled (the stream is a terminal and
// the user did not ask for quiet), so logs and pipes stay free of control characters; a text
// equal to the one shown is not drawn again.
#pragma once

#include <iosfwd>
#include <string>

#include "data/time.h"

namespace millrace::cluster_adapter {

class TerminalLine {
 public:
  TerminalLine(std::ostream& out, bool enabled);
  void show(const std::string& text);
  // Ends the line so later output starts on a fresh one.
  void finish();
  bool enabled() const { return enabled_; }

 private:
  std::ostream& out_;
  bool enabled_;
  std::string last_;
};

// "45s", "3m12s", "2h05m" (rounded up to whole seconds).
std::string render_duration(data::Micros duration);

}  // namespace millrace::cluster_adapter
