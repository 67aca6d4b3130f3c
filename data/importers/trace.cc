#include "data/importers/trace.h"

#include <algorithm>
#include <map>

#include "data/importers/fields.h"
#include "data/text_excerpt.h"

namespace millrace::data::importers {

void lay_back_to_back(std::vector<Attempt>& attempts, const std::string& input) {
  std::map<std::string, Micros> free_at;
  for (auto& a : attempts) {
    Micros duration = a.duration();
    Micros& at = free_at[a.worker];
    a.start = at;
    a.end = back_to_back_end(at, duration, a.worker, a.item_id, input);
    at = a.end;
  }
}

Micros back_to_back_end(Micros free_at, Micros duration, const std::string& worker, const std::string& item_id,
                        const std::string& input) {
  return time_sum(free_at, duration, input, "worker " + excerpt(worker) + ": back-to-back end of item " + excerpt(item_id));
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
