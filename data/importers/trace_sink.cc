#include "data/importers/trace_sink.h"

#include <algorithm>

#include "data/error.h"
#include "data/text_excerpt.h"

namespace millrace::data::importers {

Error duplicate_attempt(const Attempt& attempt, const std::string& where, const std::string& earlier) {
  return Error(where, "duplicate row: attempt " + std::to_string(attempt.number) + " of item " +
                          excerpt(attempt.item_id) + " is already at " + earlier);
}

void add_trace(const Trace& trace, TraceSink& sink, const std::string& input) {
  for (const auto& item : trace.items) sink.add_item(item);
  for (const auto& attempt : trace.attempts) sink.add_attempt(attempt, input);
}

bool TraceBuilder::add_item(const WorkItem& item) {
  if (!latest_.emplace(item.id, 0).second) return false;
  trace_.items.push_back(item);
  return true;
}

bool TraceBuilder::has_item(const std::string& item_id) { return latest_.count(item_id) > 0; }

int TraceBuilder::latest_attempt(const std::string& item_id) {
  auto found = latest_.find(item_id);
  return found == latest_.end() ? 0 : found->second;
}

void TraceBuilder::add_attempt(const Attempt& attempt, const std::string& where) {
  auto [earlier, added] = where_.emplace(std::pair(attempt.item_id, attempt.number), where);
  if (!added) throw duplicate_attempt(attempt, where, earlier->second);
  int& latest = latest_[attempt.item_id];
  latest = std::max(latest, attempt.number);
  trace_.attempts.push_back(attempt);
}

void TraceBuilder::lay_back_to_back(const std::string& input) { importers::lay_back_to_back(trace_.attempts, input); }

Trace TraceBuilder::finish(const Run& run) {
  trace_.run = run;
  set_run_span(trace_);
  return std::move(trace_);
}

Trace read_whole(const std::string& path, Run (*reader)(const std::string&, TraceSink&)) {
  TraceBuilder builder;
  const Run run = reader(path, builder);
  return builder.finish(run);
}

}  // namespace millrace::data::importers
