#include "data/importers/stellar_trace.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "data/error.h"
#include "data/importers/fields.h"

namespace millrace::data::importers {

namespace {

std::string_view without_suffix(std::string_view text, std::string_view suffix, Suffixes suffixes,
                                const std::string& where, const char* what) {
  if (text.size() <= suffix.size() || text.substr(text.size() - suffix.size()) != suffix) {
    if (suffixes == Suffixes::kOptional) return text;
    throw Error(where, std::string(what) + " '" + std::string(text) + "' lacks its '" + std::string(suffix) + "' unit");
  }
  return text.substr(0, text.size() - suffix.size());
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
    throw Error(where, "bad field count: " + std::to_string(fields.size()) + " fields in '" + entry +
                           "', expected END/COUNT|worker|tx_apply_ms|total_s");
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

Trace stellar_trace(std::vector<StellarEntry> entries) {
  std::stable_sort(entries.begin(), entries.end(),
                   [](const StellarEntry& a, const StellarEntry& b) { return a.range.last() > b.range.last(); });
  Trace trace;
  std::set<std::string> workers;
  for (const auto& e : entries) {
    const WorkItem item = end_count_item(e.range);
    if (!trace.items.empty() && trace.items.back().id == item.id) throw Error(e.where, "duplicate range " + item.id);
    trace.items.push_back(item);
    Attempt a;
    a.item_id = item.id;
    a.worker = e.worker;
    a.end = e.total;
    a.work_time = e.tx_apply;
    trace.attempts.push_back(a);
    workers.insert(e.worker);
  }
  lay_back_to_back(trace.attempts);
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
