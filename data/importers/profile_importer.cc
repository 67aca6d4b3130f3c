#include "data/importers/profile_importer.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

#include "data/checked_numbers.h"
#include "data/error.h"
#include "data/importers/csv_table.h"
#include "data/importers/fields.h"
#include "data/importers/json_input.h"
#include "data/importers/text_input.h"

namespace millrace::data::importers {

namespace {

// One row as read, before the contiguity check.
struct ProfileRow {
  std::int64_t first = 0;
  std::int64_t count = 0;
  double micros_per_unit = 0;
  std::string where;
};

// Which cost a row gives: per unit (micros) or for the whole row (seconds).
enum class CostKind { kUnitMicros, kRowSeconds };

double density(double value, CostKind kind, std::int64_t count, const std::string& where) {
  const char* name = kind == CostKind::kUnitMicros ? "unit_cost_us" : "cost_s";
  if (value < 0) throw Error(where, std::string(name) + " must not be negative");
  const double per_unit = kind == CostKind::kUnitMicros ? value : value * kMicrosPerSecond / static_cast<double>(count);
  if (!std::isfinite(per_unit)) throw Error(where, std::string(name) + " out of range: not a finite cost");
  return per_unit;
}

std::vector<ProfileRow> read_csv_rows(const std::string& path) {
  TextInput input(path);
  CsvReader table(input);
  const CostKind kind = table.column("cost_s") ? CostKind::kRowSeconds : CostKind::kUnitMicros;
  table.require_columns({"first", "count", kind == CostKind::kRowSeconds ? "cost_s" : "unit_cost_us"});
  const std::size_t first = *table.column("first");
  const std::size_t count = *table.column("count");
  const std::size_t cost = *table.column(kind == CostKind::kRowSeconds ? "cost_s" : "unit_cost_us");
  std::vector<ProfileRow> rows;
  CsvRow row;
  while (table.next_row(row)) {
    ProfileRow r;
    r.where = input.where(row.line);
    r.first = parse_int(row.fields[first], r.where, "first");
    r.count = parse_int(row.fields[count], r.where, "count");
    check_count(r.count, r.where, "count");
    r.micros_per_unit = density(parse_real(row.fields[cost], r.where, "cost"), kind, r.count, r.where);
    rows.push_back(r);
  }
  return rows;
}

const nlohmann::json& json_number(const nlohmann::json& row, const char* key, const std::string& where) {
  if (!row.contains(key)) throw Error(where, std::string("a row needs \"") + key + "\"");
  if (!row[key].is_number()) throw Error(where, std::string("\"") + key + "\" must be a number, got " + json_excerpt(row[key]));
  return row[key];
}

std::int64_t json_integer(const nlohmann::json& row, const char* key, const std::string& where) {
  const nlohmann::json& value = json_number(row, key, where);
  if (!value.is_number_integer()) throw Error(where, std::string("\"") + key + "\" must be an integer, got " + json_excerpt(value));
  if (value.is_number_unsigned() && value.get<std::uint64_t>() > std::numeric_limits<std::int64_t>::max()) {
    throw Error(where, std::string("\"") + key + "\" " + value.dump() + " does not fit in 64-bit unit numbers");
  }
  return value.get<std::int64_t>();
}

ProfileRow json_row(const nlohmann::json& row, const std::string& where) {
  ProfileRow r;
  r.where = where;
  if (!row.is_object()) throw Error(r.where, "a row must be an object, got " + json_excerpt(row));
  const bool per_unit = row.contains("unit_cost_us");
  if (per_unit == row.contains("cost_s")) throw Error(r.where, "a row needs exactly one of unit_cost_us and cost_s");
  r.first = json_integer(row, "first", r.where);
  r.count = json_integer(row, "count", r.where);
  check_count(r.count, r.where, "count");
  const CostKind kind = per_unit ? CostKind::kUnitMicros : CostKind::kRowSeconds;
  r.micros_per_unit = density(json_number(row, per_unit ? "unit_cost_us" : "cost_s", r.where).get<double>(), kind,
                              r.count, r.where);
  return r;
}

std::vector<ProfileRow> read_json_rows(const std::string& path, std::string& units) {
  TextInput input(path);
  std::vector<ProfileRow> rows;
  const nlohmann::json doc = parse_json_list(input, "rows", [&rows](const nlohmann::json& row, const std::string& where) {
    rows.push_back(json_row(row, where));
  });
  const std::string top = input.where(1);
  if (doc.is_object()) {
    if (!doc.contains("rows")) throw Error(top, "a JSON object needs a \"rows\" array");
    if (doc.contains("units")) {
      if (!doc["units"].is_string()) throw Error(top, "\"units\" must be a string");
      units = doc["units"].get<std::string>();
    }
    if (!doc["rows"].is_array()) throw Error(top, "expected an array of rows");
  } else if (!doc.is_array()) {
    throw Error(top, "expected an array of rows");
  }
  return rows;
}

}  // namespace

CostProfile read_cost_profile(const std::string& path) {
  CostProfile profile;
  profile.source = path;
  const std::vector<ProfileRow> rows = looks_like_json(path) ? read_json_rows(path, profile.units)
                                                              : read_csv_rows(path);
  if (rows.empty()) throw Error(path, "no rows");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ProfileRow& r = rows[i];
    const std::optional<Range> range = range_from_first_count(r.first, r.count);
    if (!range) {
      throw Error(r.where, "first " + std::to_string(r.first) + " + count " + std::to_string(r.count) +
                               " does not fit in 64-bit unit numbers");
    }
    if (i > 0) {
      const ProfileRow& before = rows[i - 1];
      const std::int64_t end = profile.bins.back().range.end();
      if (r.first > end) {
        throw Error(r.where, "gap: units " + std::to_string(end) + ".." + std::to_string(r.first - 1) +
                                 " between this row and the one before (" + before.where + ") are in no row");
      }
      if (r.first < end) {
        throw Error(r.where, "row starts at " + std::to_string(r.first) + ", inside the row before (" + before.where +
                                 ", which ends at " + std::to_string(end - 1) + "); rows must be contiguous and ascending");
      }
    }
    profile.bins.push_back({*range, r.micros_per_unit});
  }
  return profile;
}

}  // namespace millrace::data::importers
