#include "data/records.h"

#include "data/error.h"
#include "data/text_excerpt.h"

namespace millrace::data {

namespace {

constexpr const char* kOutcomeNames[] = {"succeeded", "failed", "cancelled", "running"};
constexpr const char* kSourceNames[] = {"recorded", "imported", "simulated", "real"};

template <typename Enum, std::size_t N>
Enum enum_from_string(const char* const (&names)[N], const std::string& text, const std::string& input,
                      const char* what) {
  for (std::size_t i = 0; i < N; ++i) {
    if (text == names[i]) return static_cast<Enum>(i);
  }
  std::string known;
  for (const char* name : names) known += std::string(known.empty() ? "" : ", ") + name;
  throw Error(input, "unknown " + std::string(what) + " " + excerpt(text) + " (known: " + known + ")");
}

}  // namespace

const char* to_string(Outcome outcome) { return kOutcomeNames[static_cast<int>(outcome)]; }

Outcome outcome_from_string(const std::string& text, const std::string& input) {
  return enum_from_string<Outcome>(kOutcomeNames, text, input, "outcome");
}

const char* to_string(RunSource source) { return kSourceNames[static_cast<int>(source)]; }

RunSource run_source_from_string(const std::string& text, const std::string& input) {
  return enum_from_string<RunSource>(kSourceNames, text, input, "run source");
}

}  // namespace millrace::data
