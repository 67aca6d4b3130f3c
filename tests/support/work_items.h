// Plans for scheduler tests: `n` ranges of 100 units, r0 = [0, 100), r1 = [100, 200), ...; and
// attempts of their items as a cluster reports them (a failed one exits 3).
#pragma once

#include <string>
#include <vector>

#include "data/records.h"

namespace millrace::test_support {

inline std::vector<data::WorkItem> ranges(int n) {
  std::vector<data::WorkItem> items;
  for (int i = 0; i < n; ++i) {
    data::WorkItem item;
    item.id = "r";
    item.id += std::to_string(i);
    item.range = data::Range{i * 100, 100};
    items.push_back(item);
  }
  return items;
}

inline data::Attempt attempt(const std::string& item, int number, const std::string& worker, data::Outcome outcome,
                             data::Micros start, data::Micros end, const std::string& reason = "") {
  data::Attempt a;
  a.item_id = item;
  a.number = number;
  a.worker = worker;
  a.start = start;
  a.end = end;
  a.outcome = outcome;
  a.failure_reason = reason;
  a.exit_code = outcome == data::Outcome::kFailed ? 3 : 0;
  return a;
}

}  // namespace millrace::test_support
