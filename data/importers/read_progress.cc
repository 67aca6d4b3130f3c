#include "data/importers/read_progress.h"

#include <utility>

namespace millrace::data::importers {

namespace {

thread_local ScopedReadProgress* current = nullptr;

}  // namespace

ScopedReadProgress::ScopedReadProgress(ProgressReport report) : report_(std::move(report)), outer_(current) {
  current = this;
}

ScopedReadProgress::~ScopedReadProgress() { current = outer_; }

void ScopedReadProgress::tell(std::int64_t read, std::int64_t total) {
  if (current != nullptr && current->report_) current->report_(read, total);
}

}  // namespace millrace::data::importers
