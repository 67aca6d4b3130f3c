#include "data/importers/stellar_trace.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "data/error.h"

namespace millrace::data::importers {

Trace stellar_trace(std::vector<StellarEntry> entries) {
  std::stable_sort(entries.begin(), entries.end(),
                   [](const StellarEntry& a, const StellarEntry& b) { return a.range.last() > b.range.last(); });
  Trace trace;
  std::set<std::string> workers;
  for (const auto& e : entries) {
    WorkItem item;
    item.id = e.range.end_count();
    item.range = e.range;
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
