#include "data/importers/timing_records.h"

#include <algorithm>
#include <limits>
#include <sstream>

#include "data/error.h"
#include "data/importers/fields.h"
#include "data/quantity.h"
#include "data/text_excerpt.h"
#include "data/timing_table.h"

namespace millrace::data::importers {

namespace {

const std::string* field(const TimingRecord& r, const std::string& name) {
  auto found = r.fields.find(name);
  return found == r.fields.end() ? nullptr : &found->second;
}

std::optional<Range> record_range(const TimingRecord& r) {
  const std::string* first = field(r, "first");
  const std::string* count = field(r, "count");
  const std::string* end_count = field(r, "end_count");
  if (end_count != nullptr) return parse_end_count(*end_count, r.where);
  if (first == nullptr && count == nullptr) return std::nullopt;
  if (first == nullptr || count == nullptr) throw Error(r.where, "a range needs both first and count");
  return first_count_range(parse_int(*first, r.where, "first"), parse_int(*count, r.where, "count"), r.where,
                           "range");
}

WorkItem record_item(const TimingRecord& r) {
  WorkItem item;
  item.range = record_range(r);
  if (const auto* id = field(r, "item")) {
    item.id = *id;
  } else if (item.range) {
    item.id = item.range->end_count();
  } else {
    throw Error(r.where, "no item id and no range");
  }
  if (const auto* v = field(r, "type")) item.type = *v;
  if (const auto* v = field(r, "payload")) item.payload = *v;
  if (const auto* v = field(r, "priority")) item.priority = parse_int32(*v, r.where, "priority");
  if (const auto* v = field(r, "submit_s")) item.submit_at = parse_seconds(*v, r.where, "submit_s");
  for (const auto& [column, text] : r.fields) {
    if (!column.starts_with(kRequestPrefix)) continue;
    item.requests[column.substr(kRequestPrefix.size())] = parse_quantity_milli(text, r.where + ": " + column);
  }
  if (const auto* v = field(r, "depends_on")) {
    std::istringstream ids(*v);
    for (std::string id; ids >> id;) item.depends_on.push_back(id);
  }
  return item;
}

bool has_attempt(const TimingRecord& r) {
  for (const char* name : {"attempt", "worker", "start_s", "end_s", "duration_s", "outcome", "exit_code", "work_ms",
                           "submitted_s", "unschedulable_s", "scheduled_s", "node"}) {
    if (field(r, name) != nullptr) return true;
  }
  return false;
}

const std::string& required(const TimingRecord& r, const std::string& name, const char* why) {
  const std::string* v = field(r, name);
  if (v == nullptr) throw Error(r.where, "missing " + name + " (" + why + ")");
  return *v;
}

int attempt_number(const TimingRecord& r, TraceSink& sink, const std::string& item_id) {
  const auto* v = field(r, "attempt");
  if (v == nullptr) {
    const int latest = sink.latest_attempt(item_id);
    if (latest == std::numeric_limits<int>::max()) throw Error(r.where, "too many attempts of item " + excerpt(item_id));
    return latest + 1;
  }
  const int number = parse_int32(*v, r.where, "attempt");
  if (number < 1) throw Error(r.where, "attempt " + excerpt(*v) + " out of range (attempts count from 1)");
  return number;
}

// The phases before the work started (submitted_s, unschedulable_s, scheduled_s, node), in
// order before start_s.
void record_phases(const TimingRecord& r, bool timed, Attempt& a) {
  if (const auto* v = field(r, "node")) a.node = *v;
  const std::string* submitted = field(r, "submitted_s");
  const std::string* unschedulable = field(r, "unschedulable_s");
  const std::string* scheduled = field(r, "scheduled_s");
  if (!timed) {
    if (submitted != nullptr || unschedulable != nullptr || scheduled != nullptr) {
      throw Error(r.where, "submitted_s/unschedulable_s/scheduled_s need the attempt's start_s and end_s");
    }
    return;
  }
  if (submitted != nullptr) a.submitted = parse_seconds(*submitted, r.where, "submitted_s");
  if (unschedulable != nullptr) a.unschedulable = parse_seconds(*unschedulable, r.where, "unschedulable_s");
  if (scheduled != nullptr) a.placed = parse_seconds(*scheduled, r.where, "scheduled_s");
  if (a.placed && *a.placed > a.start) throw Error(r.where, "scheduled_s is after start_s");
  const char* next = a.placed ? "scheduled_s" : "start_s";
  if (a.unschedulable && *a.unschedulable > a.placed.value_or(a.start)) {
    throw Error(r.where, std::string("unschedulable_s is after ") + next);
  }
  if (a.submitted && *a.submitted > a.unschedulable.value_or(a.placed.value_or(a.start))) {
    throw Error(r.where, std::string("submitted_s is after ") + (a.unschedulable ? "unschedulable_s" : next));
  }
}

Attempt record_attempt(const TimingRecord& r, const std::string& item_id, int number, bool timed) {
  Attempt a;
  a.item_id = item_id;
  a.number = number;
  if (const auto* v = field(r, "worker")) a.worker = *v;
  if (timed) {
    a.start = parse_seconds(required(r, "start_s", "other records have start times"), r.where, "start_s");
    a.end = parse_seconds(required(r, "end_s", "start_s is given"), r.where, "end_s");
    if (a.end < a.start) throw Error(r.where, "negative duration: end_s is before start_s");
  } else {
    a.end = parse_seconds(required(r, "duration_s", "no start_s/end_s"), r.where, "duration_s");
  }
  if (const auto* v = field(r, "outcome")) a.outcome = outcome_from_string(*v, r.where);
  if (const auto* v = field(r, "exit_code")) a.exit_code = parse_int32(*v, r.where, "exit_code");
  if (const auto* v = field(r, "failure_reason")) a.failure_reason = *v;
  if (const auto* v = field(r, "work_ms")) a.work_time = parse_millis(*v, r.where, "work_ms");
  record_phases(r, timed, a);
  return a;
}

}  // namespace

const std::vector<std::string>& timing_record_columns() {
  static const std::vector<std::string> columns = [] {
    auto c = timing_columns();
    c.push_back("end_count");
    return c;
  }();
  return columns;
}

void TimingRecordReader::add(const TimingRecord& r) {
  const auto& known = timing_record_columns();
  for (const auto& [name, value] : r.fields) {
    if (name.starts_with(kRequestPrefix)) {
      if (name.size() == kRequestPrefix.size()) throw Error(r.where, "column request. names no resource (request.cpu, ...)");
      continue;
    }
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      throw Error(r.where, "unknown column " + excerpt(name) + " (see data/importers/timing_records.h)");
    }
  }
  WorkItem item = record_item(r);
  sink_.add_item(item);
  if (!has_attempt(r)) return;
  const bool timed = field(r, "start_s") != nullptr;
  if (!timed_) {
    timed_ = timed;
    first_attempt_where_ = r.where;
  } else if (*timed_ != timed) {
    throw Error(r.where, timed ? "has start_s, but the attempt at " + first_attempt_where_ +
                                     " has none (give every attempt start_s/end_s, or none)"
                               : "missing start_s (other records have start times, e.g. " + first_attempt_where_ + ")");
  }
  const Attempt attempt = record_attempt(r, item.id, attempt_number(r, sink_, item.id), timed);
  // Without submitted_s a first attempt counts as submitted at the item's submit_s: nothing of it
  // can come before that.
  if (attempt.number == 1 && !attempt.submitted && attempt.unschedulable && *attempt.unschedulable < item.submit_at) {
    throw Error(r.where, "unschedulable_s is before the item's submit_s (a first attempt without submitted_s counts as "
                         "submitted at submit_s)");
  }
  sink_.add_attempt(attempt, r.where);
}

void TimingRecordReader::finish(const std::string& input) {
  if (timed_ && !*timed_) sink_.lay_back_to_back(input);
}

}  // namespace millrace::data::importers
