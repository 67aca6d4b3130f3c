// How a cloud bills a machine's lifetime: by the second, the minute or the started hour, with an
// optional minimum (most clouds bill VMs by the second with a 60 s minimum). Spelt as files and
// options take it: `per-second`, `per-second:60s` (a minimum, any duration data/typed_duration.h
// reads), `per-minute`, `per-hour`; an empty rule is per second without a minimum. A rule turns a
// lifetime into the time billed: rounded up to the rule's unit, then at least its minimum (a
// lifetime of 0, a machine that never ran, bills nothing).
#pragma once

#include <string>

#include "data/time.h"

namespace millrace::data {

struct BillingRule {
  Micros unit = kMicrosPerSecond;  // a second, a minute or an hour
  Micros minimum = 0;
  bool operator==(const BillingRule&) const = default;
};

// Throws Error naming `where` and `text` when it is no rule, with the known ones.
BillingRule parse_billing(const std::string& text, const std::string& where);

// "per-second", "per-second:60s", "per-hour": as parse_billing reads it.
std::string billing_text(const BillingRule& rule);

// The time billed for a machine that lived `lifetime`.
Micros billed_time(const BillingRule& rule, Micros lifetime);

}  // namespace millrace::data
