#include "data/importers/stellar_log_importer.h"

#include <nlohmann/json.hpp>

#include "data/error.h"
#include "data/importers/stellar_trace.h"
#include "data/importers/text_input.h"

namespace millrace::data::importers {

Trace read_stellar_log(const std::string& path) {
  auto input = TextInput::read(path);
  for (std::size_t n = 1; n <= input.line_count(); ++n) {
    std::string_view line = input.line(n);
    std::size_t brace = line.find("{\"metrics\"");
    if (line.find("/metrics") == std::string_view::npos || brace == std::string_view::npos) continue;
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(line.substr(brace));
    } catch (const nlohmann::json::parse_error& e) {
      bool at_end = e.byte >= line.size() - brace;
      throw Error(input.where(n), std::string(at_end ? "truncated file: " : "malformed /metrics JSON: ") + e.what());
    }
    if (!doc["metrics"].is_array()) throw Error(input.where(n), "\"metrics\" is not an array");
    if (doc["metrics"].empty()) throw Error(input.where(n), "the /metrics line has no entries");
    std::vector<StellarEntry> entries;
    for (std::size_t i = 0; i < doc["metrics"].size(); ++i) {
      std::string where = input.where(n) + ": entry " + std::to_string(i + 1);
      const auto& entry = doc["metrics"][i];
      if (!entry.is_string()) throw Error(where, "entry is not a string");
      entries.push_back(parse_stellar_entry(entry.get<std::string>(), where, Suffixes::kRequired));
    }
    return stellar_trace(std::move(entries));
  }
  throw Error(path, "no job monitor /metrics line with {\"metrics\": [...]} (is this a stellar-supercluster log?)");
}

}  // namespace millrace::data::importers
