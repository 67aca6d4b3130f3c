// The parameters of one attempt under the names every real cluster gives them: the local
// command template's and the Job template's placeholders, the Job's MILLRACE_* env vars and the
// fields of the lease API's work item. Following data::Range (units [first, first + count)):
//   first      first unit of the range          count      number of units
//   last       last unit, inclusive             end        one past the last unit, exclusive
//   end_count  "LAST/COUNT" (parallel catch-up deployments take this form)
//   id         the work item's id               attempt    1-based attempt number
//   payload    the item's opaque payload        type       the item's job type
// The range values exist only for items with a range.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "data/records.h"

namespace millrace::cluster_adapter {

inline constexpr std::array<std::string_view, 9> kAttemptValueNames = {
    "first", "count", "last", "end", "end_count", "id", "attempt", "payload", "type"};

// True for the names only an item with a range has.
bool is_range_value(std::string_view name);

struct AttemptValue {
  std::string_view name;
  std::string text;                    // the value as text (a number in decimal)
  std::optional<std::int64_t> number;  // set when the value is a whole number
};

// The values of attempt `attempt` of `item`, in the order of kAttemptValueNames (without the
// range values when the item has no range).
std::vector<AttemptValue> attempt_values(const data::WorkItem& item, int attempt);

}  // namespace millrace::cluster_adapter
