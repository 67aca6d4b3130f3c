#include "data/importers/stellar_metrics_importer.h"

#include <algorithm>
#include <map>

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

}  // namespace

std::int64_t stellar_overlap(const std::vector<WorkItem>& items) {
  std::map<std::int64_t, int> gaps;
  for (std::size_t i = 1; i < items.size(); ++i) {
    // A gap beyond 64 bits cannot be the common distance of overlapping ranges: it counts as none.
    if (auto gap = checked_sub(items[i - 1].range->last(), items[i].range->last())) ++gaps[*gap];
  }
  if (gaps.empty()) return 0;
  const auto common = std::max_element(gaps.begin(), gaps.end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; });
  const auto overlap = checked_sub(items.front().range->count, common->first);
  return overlap ? std::max<std::int64_t>(0, *overlap) : 0;
}

Run read_stellar_metrics(const std::string& path, TraceSink& sink) {
  TextInput input(path);
  std::vector<StellarEntry> entries;
  while (input.next_line()) {
    const std::string entry = strip_cli_decoration(input.line());
    if (entry.empty()) continue;
    entries.push_back(parse_stellar_entry(entry, input.where(), Suffixes::kOptional));
  }
  if (entries.empty()) throw Error(path, "no metrics entries");
  Trace trace = stellar_trace(std::move(entries), path);
  nlohmann::json parameters = nlohmann::json::parse(trace.run.parameters);
  parameters["overlap"] = stellar_overlap(trace.items);
  trace.run.parameters = parameters.dump();
  add_trace(trace, sink, path);
  return trace.run;
}

Trace read_stellar_metrics(const std::string& path) { return read_whole(path, read_stellar_metrics); }

}  // namespace millrace::data::importers
