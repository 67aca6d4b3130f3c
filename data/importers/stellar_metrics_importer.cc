#include "data/importers/stellar_metrics_importer.h"

#include <algorithm>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "data/checked_numbers.h"
#include "data/error.h"
#include "data/importers/stellar_trace.h"
#include "data/importers/text_input.h"

namespace millrace::data::importers {

namespace {

// `1) "6463/16320|3|9.2|44s"` -> `6463/16320|3|9.2|44s`
std::string strip_cli_decoration(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
  const std::size_t paren = line.find(") \"");
  if (paren != std::string_view::npos && paren > 0 &&
      std::all_of(line.begin(), line.begin() + paren, [](char c) { return c == ' ' || (c >= '0' && c <= '9'); })) {
    line.remove_prefix(paren + 2);
  }
  if (line.size() >= 2 && line.front() == '"' && line.back() == '"') line = line.substr(1, line.size() - 2);
  return std::string(line);
}

// COUNT of the first item minus the most common gap between consecutive ENDs of the items, seen
// tip first (0 when fewer than two items or when ranges do not overlap).
class OverlapGuess {
 public:
  void add(const WorkItem& item) {
    if (!first_count_) {
      first_count_ = item.range->count;
    } else if (auto gap = checked_sub(last_, item.range->last())) {
      ++gaps_[*gap];  // a gap beyond 64 bits cannot be the common distance of overlapping ranges
    }
    last_ = item.range->last();
  }

  std::int64_t overlap() const {
    if (gaps_.empty()) return 0;
    const auto common = std::max_element(gaps_.begin(), gaps_.end(),
                                         [](const auto& a, const auto& b) { return a.second < b.second; });
    const auto overlap = checked_sub(*first_count_, common->first);
    return overlap ? std::max<std::int64_t>(0, *overlap) : 0;
  }

 private:
  std::optional<std::int64_t> first_count_;
  std::int64_t last_ = 0;
  std::map<std::int64_t, std::int64_t> gaps_;  // gap -> how often
};

}  // namespace

Run read_stellar_metrics(const std::string& path, TraceSink& sink) {
  TextInput input(path);
  StellarRecording recording(path);
  while (input.next_line()) {
    const std::string entry = strip_cli_decoration(input.line());
    if (entry.empty()) continue;
    recording.add(parse_stellar_entry(entry, input.where(), Suffixes::kOptional));
  }
  if (recording.size() == 0) throw Error(path, "no metrics entries");
  OverlapGuess guess;
  Run run = recording.write(sink, [&guess](const WorkItem& item) { guess.add(item); });
  nlohmann::json parameters = nlohmann::json::parse(run.parameters);
  parameters["overlap"] = guess.overlap();
  run.parameters = parameters.dump();
  return run;
}

Trace read_stellar_metrics(const std::string& path) { return read_whole(path, read_stellar_metrics); }

}  // namespace millrace::data::importers
