// Bytes an import has read of its input, for the importing command's progress display: the
// command holds a ScopedReadProgress while it imports, and every TextInput (text_input.h) of that
// thread reports to it as it reads (bytes of the file as stored, so a gzip file's compressed
// bytes, of its size). The importers only name their files; none passes a listener along.
#pragma once

#include <cstdint>

#include "data/progress.h"

namespace millrace::data::importers {

class ScopedReadProgress {
 public:
  explicit ScopedReadProgress(ProgressReport report);
  ~ScopedReadProgress();
  ScopedReadProgress(const ScopedReadProgress&) = delete;
  ScopedReadProgress& operator=(const ScopedReadProgress&) = delete;

  // What a TextInput tells: `read` bytes of `total` of the file it reads. Nothing without a
  // ScopedReadProgress on this thread.
  static void tell(std::int64_t read, std::int64_t total);

 private:
  ProgressReport report_;
  ScopedReadProgress* outer_;
};

}  // namespace millrace::data::importers
