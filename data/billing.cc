#include "data/billing.h"

#include <algorithm>
#include <utility>

#include "data/error.h"
#include "data/typed_duration.h"

namespace millrace::data {

namespace {

constexpr std::pair<const char*, Micros> kUnits[] = {
    {"per-second", kMicrosPerSecond}, {"per-minute", 60 * kMicrosPerSecond}, {"per-hour", kMicrosPerHour}};

}  // namespace

BillingRule parse_billing(const std::string& text, const std::string& where) {
  BillingRule rule;
  if (text.empty()) return rule;
  const std::size_t colon = text.find(':');
  const std::string unit = text.substr(0, colon);
  bool known = false;
  for (const auto& [name, micros] : kUnits) {
    if (unit == name) {
      rule.unit = micros;
      known = true;
    }
  }
  if (!known) {
    throw Error(where + " '" + text + "'",
                "unknown billing rule (known: per-second, per-second:MIN e.g. per-second:60s, per-minute, per-hour; "
                "empty: per second)");
  }
  if (colon != std::string::npos) rule.minimum = parse_duration(text.substr(colon + 1), where + " minimum");
  return rule;
}

std::string billing_text(const BillingRule& rule) {
  std::string text;
  for (const auto& [name, micros] : kUnits) {
    if (rule.unit == micros) text = name;
  }
  return rule.minimum > 0 ? text + ":" + typed_duration_text(rule.minimum) : text;
}

Micros billed_time(const BillingRule& rule, Micros lifetime) {
  if (lifetime <= 0) return 0;
  const Micros rounded = (lifetime + rule.unit - 1) / rule.unit * rule.unit;
  return std::max(rounded, rule.minimum);
}

}  // namespace millrace::data
