#include "data/importers/trace.h"

#include <algorithm>
#include <map>

namespace millrace::data::importers {

void lay_back_to_back(std::vector<Attempt>& attempts) {
  std::map<std::string, Micros> free_at;
  for (auto& a : attempts) {
    Micros duration = a.duration();
    Micros& at = free_at[a.worker];
    a.start = at;
    a.end = at + duration;
    at = a.end;
  }
}

void set_run_span(Trace& trace) {
  if (trace.attempts.empty()) return;
  trace.run.started = trace.attempts.front().start;
  trace.run.ended = trace.attempts.front().end;
  for (const auto& a : trace.attempts) {
    trace.run.started = std::min(trace.run.started, a.start);
    trace.run.ended = std::max(trace.run.ended, a.end);
  }
}

}  // namespace millrace::data::importers
