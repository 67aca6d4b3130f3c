#include "data/importers/read_progress.h"

#include <utility>

namespace millrace::data::importers {

namespace {

thread_local ScopedReadProgress* current = nullptr;

}  // namespace

ScopedReadProgress::ScopedReadProgress(ProgressReport report, PhaseStart phases)
    : report_(std::move(report)), phases_(std::move(phases)), outer_(current) {
  current = this;
}

ScopedReadProgress::~ScopedReadProgress() { current = outer_; }

void ScopedReadProgress::tell(std::int64_t read, std::int64_t total) {
  if (current != nullptr && current->report_) current->report_(read, total);
}

ProgressReport ScopedReadProgress::phase(const std::string& name, const std::string& unit) {
  if (current == nullptr || !current->phases_) return {};
  return current->phases_(name, unit);
}

}  // namespace millrace::data::importers
