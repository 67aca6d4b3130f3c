#include "data/importers/stellar_trace.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "data/error.h"
#include "data/importers/fields.h"
#include "data/text_excerpt.h"

namespace millrace::data::importers {

namespace {

std::string_view without_suffix(std::string_view text, std::string_view suffix, Suffixes suffixes,
                                const std::string& where, const char* what) {
  if (text.size() <= suffix.size() || text.substr(text.size() - suffix.size()) != suffix) {
    if (suffixes == Suffixes::kOptional) return text;
    throw Error(where, std::string(what) + " " + excerpt(text) + " lacks its '" + std::string(suffix) + "' unit");
  }
  return text.substr(0, text.size() - suffix.size());
}

// Several entries of one range are its tries (a range re-run after its worker was lost, or
// run by two workers). What no retry explains is rejected, naming the later line and the
// earlier one: one END with two COUNTs, and the same entry twice (a Redis set holds each once).
void check_retries(const std::vector<StellarEntry>& entries) {
  std::map<std::int64_t, const StellarEntry*> by_end;
  std::map<std::tuple<std::int64_t, std::string, std::optional<Micros>, Micros>, const StellarEntry*> seen;
  for (const StellarEntry& e : entries) {
    const auto [same_end, first_of_end] = by_end.emplace(e.range.last(), &e);
    if (!first_of_end && same_end->second->range.count != e.range.count) {
      throw Error(e.where, "range " + e.range.end_count() + " disagrees with " + same_end->second->range.end_count() +
                               " at " + same_end->second->where + ": one END, two COUNTs");
    }
    const auto [same, first] = seen.emplace(std::tuple(e.range.last(), e.worker, e.tx_apply, e.total), &e);
    if (!first) throw Error(e.where, "repeats the entry at " + same->second->where + " (each try is recorded once)");
  }
}

bool numeric(const std::string& text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The order of one range's tries, whatever order the recording lists them in (a Redis set has
// none): by worker id, numerically when both are numbers, then by duration and apply time.
bool tries_before(const StellarEntry& a, const StellarEntry& b) {
  if (a.worker != b.worker) {
    if (numeric(a.worker) && numeric(b.worker) && a.worker.size() != b.worker.size()) {
      return a.worker.size() < b.worker.size();
    }
    return a.worker < b.worker;
  }
  return std::tie(a.total, a.tx_apply) < std::tie(b.total, b.tx_apply);
}

}  // namespace

StellarEntry parse_stellar_entry(const std::string& entry, const std::string& where, Suffixes suffixes) {
  std::vector<std::string_view> fields;
  std::string_view rest = entry;
  for (std::size_t bar; (bar = rest.find('|')) != std::string_view::npos; rest.remove_prefix(bar + 1)) {
    fields.push_back(rest.substr(0, bar));
  }
  fields.push_back(rest);
  if (fields.size() != 4) {
    throw Error(where, "bad field count: " + std::to_string(fields.size()) + " fields in " + excerpt(entry) +
                           ", expected END/COUNT|worker|tx_apply_ms|total_s");
  }
  StellarEntry e;
  e.where = where;
  e.range = parse_end_count(fields[0], where);
  if (fields[1].empty()) throw Error(where, "empty worker");
  e.worker = std::string(fields[1]);
  if (suffixes == Suffixes::kRequired || fields[2] != "N/A") {
    e.tx_apply = parse_millis(without_suffix(fields[2], "ms", suffixes, where, "tx_apply"), where, "tx_apply_ms");
  }
  e.total = parse_seconds(without_suffix(fields[3], "s", suffixes, where, "total"), where, "total_s (duration)");
  return e;
}

WorkItem end_count_item(const Range& range) {
  WorkItem item;
  item.id = range.end_count();
  item.range = range;
  return item;
}

Trace stellar_trace(std::vector<StellarEntry> entries, const std::string& input) {
  check_retries(entries);
  std::stable_sort(entries.begin(), entries.end(), [](const StellarEntry& a, const StellarEntry& b) {
    return a.range.last() != b.range.last() ? a.range.last() > b.range.last() : tries_before(a, b);
  });
  Trace trace;
  std::set<std::string> workers;
  for (const auto& e : entries) {
    const WorkItem item = end_count_item(e.range);
    const bool retry = !trace.items.empty() && trace.items.back().id == item.id;
    if (!retry) trace.items.push_back(item);
    Attempt a;
    a.item_id = item.id;
    a.number = retry ? trace.attempts.back().number + 1 : 1;
    a.worker = e.worker;
    a.end = e.total;
    a.work_time = e.tx_apply;
    trace.attempts.push_back(a);
    workers.insert(e.worker);
  }
  lay_back_to_back(trace.attempts, input);
  trace.run.source = RunSource::kRecorded;
  trace.run.units = "ledgers";
  trace.run.partitioner = "uniform";
  trace.run.policy = "fixed-pool";
  trace.run.parameters = nlohmann::json{{"workers", workers.size()},
                                        {"order", "tip-first"},
                                        {"start_times", "reconstructed: each worker's ranges back to back from 0, "
                                                        "tip first"}}
                             .dump();
  set_run_span(trace);
  return trace;
}

}  // namespace millrace::data::importers
