// How far an import got, for the importing command's progress display: the command holds a
// ScopedReadProgress while it imports, and every TextInput (text_input.h) of that thread reports
// to it as it reads (bytes of the file as stored, so a gzip file's compressed bytes, of its
// size); the phases after the reading (attempts laid back to back, the run published) report
// their own steps, so the line does not sit at 100% of the bytes while they run. The importers
// only name their files; none passes a listener along.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "data/progress.h"

namespace millrace::data::importers {

// A phase after the reading begins: its name ("laying attempts back to back") and the unit its
// steps count; the report it returns takes the steps done of the total.
using PhaseStart = std::function<ProgressReport(const std::string& phase, const std::string& unit)>;

class ScopedReadProgress {
 public:
  explicit ScopedReadProgress(ProgressReport report, PhaseStart phases = {});
  ~ScopedReadProgress();
  ScopedReadProgress(const ScopedReadProgress&) = delete;
  ScopedReadProgress& operator=(const ScopedReadProgress&) = delete;

  // What a TextInput tells: `read` bytes of `total` of the file it reads. Nothing without a
  // ScopedReadProgress on this thread.
  static void tell(std::int64_t read, std::int64_t total);
  // A phase after the reading: what reports its steps (nothing without a ScopedReadProgress on
  // this thread, or one that shows no phases).
  static ProgressReport phase(const std::string& name, const std::string& unit);

 private:
  ProgressReport report_;
  PhaseStart phases_;
  ScopedReadProgress* outer_;
};

}  // namespace millrace::data::importers
