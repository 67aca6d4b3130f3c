// Plans for scheduler tests: `n` ranges of 100 units, r0 = [0, 100), r1 = [100, 200), ...
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

}  // namespace millrace::test_support
