#include "data/importers/stellar_log_importer.h"

#include <nlohmann/json.hpp>

#include "data/error.h"
#include "data/importers/fields.h"
#include "data/importers/stellar_trace.h"
#include "data/importers/text_input.h"

namespace millrace::data::importers {

namespace {

std::string_view without_suffix(std::string_view text, std::string_view suffix, const std::string& where,
                                const char* what) {
  if (text.size() <= suffix.size() || text.substr(text.size() - suffix.size()) != suffix) {
    throw Error(where, std::string(what) + " '" + std::string(text) + "' lacks its '" + std::string(suffix) + "' unit");
  }
  return text.substr(0, text.size() - suffix.size());
}

StellarEntry parse_entry(const std::string& entry, const std::string& where) {
  std::vector<std::string_view> fields;
  std::string_view rest = entry;
  for (std::size_t bar; (bar = rest.find('|')) != std::string_view::npos; rest.remove_prefix(bar + 1)) {
    fields.push_back(rest.substr(0, bar));
  }
  fields.push_back(rest);
  if (fields.size() != 4) {
    throw Error(where, "bad field count: " + std::to_string(fields.size()) + " fields in '" + entry +
                           "', expected END/COUNT|worker|tx_apply_ms|total_s");
  }
  StellarEntry e;
  e.where = where;
  e.range = parse_end_count(fields[0], where);
  if (fields[1].empty()) throw Error(where, "empty worker");
  e.worker = std::string(fields[1]);
  e.tx_apply = parse_millis(without_suffix(fields[2], "ms", where, "tx_apply"), where, "tx_apply_ms");
  e.total = parse_seconds(without_suffix(fields[3], "s", where, "total"), where, "total_s (duration)");
  return e;
}

}  // namespace

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
      entries.push_back(parse_entry(entry.get<std::string>(), where));
    }
    return stellar_trace(std::move(entries));
  }
  throw Error(path, "no job monitor /metrics line with {\"metrics\": [...]} (is this a stellar-supercluster log?)");
}

}  // namespace millrace::data::importers
