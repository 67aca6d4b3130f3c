#include "partitioners/ranges_file.h"

#include <algorithm>
#include <numeric>
#include <cstdint>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

#include "data/checked_numbers.h"
#include "data/error.h"
#include "data/importers/fields.h"
#include "data/importers/json_input.h"
#include "data/quantity.h"
#include "data/importers/text_input.h"
#include "data/model_span.h"

namespace millrace::partitioners {

namespace {

using data::importers::TextInput;

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::vector<std::string_view> split_commas(std::string_view line) {
  std::vector<std::string_view> fields;
  for (std::size_t comma; (comma = line.find(',')) != std::string_view::npos; line.remove_prefix(comma + 1)) {
    fields.push_back(trim(line.substr(0, comma)));
  }
  fields.push_back(trim(line));
  return fields;
}

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string too_wide(const std::string& what) { return what + " does not fit in 64-bit unit numbers"; }

// [first, last] or [first, first + count) from the values a row gives; checks they agree, and
// that the range and its end fit in 64 bits.
data::Range range_from(std::int64_t first, std::optional<std::int64_t> count, std::optional<std::int64_t> last,
                       const std::string& where) {
  if (last && count) {
    const std::optional<std::int64_t> before_end = data::checked_sub(*count, 1);
    const std::optional<std::int64_t> expected = before_end ? data::checked_add(first, *before_end) : std::nullopt;
    if (expected != last) {
      throw data::Error(where, "last " + std::to_string(*last) + " does not match first " + std::to_string(first) +
                                   " + count " + std::to_string(*count) + " - 1");
    }
  }
  std::optional<std::int64_t> n = count;
  if (!n) {
    const std::optional<std::int64_t> distance = data::checked_sub(*last, first);
    n = distance ? data::checked_add(*distance, 1) : std::nullopt;
    if (!n) throw data::Error(where, too_wide("range " + std::to_string(first) + ".." + std::to_string(*last)));
  }
  if (*n < 1) {
    throw data::Error(where, count ? "count " + std::to_string(*n) + ": a range needs at least one unit"
                                   : "last " + std::to_string(*last) + " is before first " + std::to_string(first));
  }
  const std::optional<data::Range> range = data::range_from_first_count(first, *n);
  if (!range) {
    throw data::Error(where, too_wide("range first " + std::to_string(first) + " count " + std::to_string(*n)));
  }
  return *range;
}

void declare_overlap(std::optional<std::int64_t>& overlap, std::int64_t value, const std::string& where) {
  if (value < 0) throw data::Error(where, "overlap " + std::to_string(value) + " must not be negative");
  if (overlap && *overlap != value) {
    throw data::Error(where, "overlap declared again as " + std::to_string(value) + " (was " +
                                 std::to_string(*overlap) + ")");
  }
  overlap = value;
}

// The columns of a CSV ranges file: where first, count and last are (last or count may be absent).
struct CsvColumns {
  std::size_t fields = 2;
  std::size_t first = 0;
  std::optional<std::size_t> count = 1;
  std::optional<std::size_t> last;
};

CsvColumns header_columns(const std::vector<std::string_view>& header, const std::string& where) {
  CsvColumns columns{header.size(), 0, std::nullopt, std::nullopt};
  std::optional<std::size_t> first;
  for (std::size_t i = 0; i < header.size(); ++i) {
    const std::string name = lowercase(header[i]);
    if (name == "first") first = i;
    if (name == "count") columns.count = i;
    if (name == "last") columns.last = i;
  }
  if (!first || (!columns.count && !columns.last)) {
    throw data::Error(where, "the header needs columns first and count (or first and last)");
  }
  columns.first = *first;
  return columns;
}

// END/COUNT and CSV lines (the two text formats, one per file).
void read_text(const std::string& path, RangesFile& file, std::optional<std::int64_t>& overlap) {
  enum class Kind { kUnknown, kEndCount, kCsv } kind = Kind::kUnknown;
  CsvColumns columns;
  std::size_t kind_line = 0;
  TextInput input(path);
  while (input.next_line()) {
    const std::string_view line = trim(input.line());
    const std::string where = input.where();
    if (line.empty()) continue;
    if (line.front() == '#') {
      std::string_view comment = trim(line.substr(1));
      if (lowercase(comment.substr(0, 7)) == "overlap") {
        comment = trim(comment.substr(7));
        if (!comment.empty() && (comment.front() == ':' || comment.front() == '=')) comment = trim(comment.substr(1));
        declare_overlap(overlap, data::importers::parse_int(comment, where, "overlap"), where);
      }
      continue;
    }
    const Kind this_kind = line.find('/') != std::string_view::npos ? Kind::kEndCount : Kind::kCsv;
    if (kind == Kind::kUnknown) {
      kind = this_kind;
      kind_line = input.line_number();
      if (kind == Kind::kCsv) {
        const std::vector<std::string_view> fields = split_commas(line);
        if (!fields.front().empty() && (std::isalpha(static_cast<unsigned char>(fields.front().front())) != 0)) {
          columns = header_columns(fields, where);
          continue;
        }
      }
    } else if (this_kind != kind) {
      throw data::Error(where, std::string("expected ") + (kind == Kind::kCsv ? "CSV" : "END/COUNT") + " like line " +
                                   std::to_string(kind_line) + ", got '" + std::string(line) + "'");
    }
    if (kind == Kind::kEndCount) {
      file.ranges.push_back({data::importers::parse_end_count(line, where), input.line_number()});
      continue;
    }
    const std::vector<std::string_view> fields = split_commas(line);
    if (fields.size() != columns.fields) {
      throw data::Error(where, "bad field count: " + std::to_string(fields.size()) + " fields, expected " +
                                   std::to_string(columns.fields));
    }
    auto field = [&](std::optional<std::size_t> at, const char* what) -> std::optional<std::int64_t> {
      if (!at) return std::nullopt;
      return data::importers::parse_int(fields[*at], where, what);
    };
    file.ranges.push_back({range_from(*field(columns.first, "first"), field(columns.count, "count"),
                                      field(columns.last, "last"), where),
                           input.line_number()});
  }
}

std::optional<std::int64_t> json_integer(const nlohmann::json& object, const char* key, const std::string& where) {
  if (!object.contains(key)) return std::nullopt;
  if (!object[key].is_number_integer()) {
    throw data::Error(where, std::string("\"") + key + "\" must be an integer, got " + data::importers::json_excerpt(object[key]));
  }
  if (object[key].is_number_unsigned() && object[key].get<std::uint64_t>() > std::numeric_limits<std::int64_t>::max()) {
    throw data::Error(where, too_wide(std::string("\"") + key + "\" " + object[key].dump()));
  }
  return object[key].get<std::int64_t>();
}

// The "request.NAME" fields of a JSON range: quantities as strings or numbers.
data::Quantities requests_of(const nlohmann::json& element, const std::string& where) {
  constexpr std::string_view kPrefix = "request.";
  data::Quantities requests;
  for (const auto& [key, value] : element.items()) {
    if (!key.starts_with(kPrefix)) continue;
    if (!value.is_string() && !value.is_number()) {
      throw data::Error(where + ": " + key, "a quantity must be a string or a number, got " + data::importers::json_excerpt(value));
    }
    requests[key.substr(kPrefix.size())] =
        data::parse_quantity_milli(value.is_string() ? value.get<std::string>() : value.dump(), where + ": " + key);
  }
  return requests;
}

// The line of a "file:line" as the JSON reader names an element's.
std::size_t line_of(const std::string& where) { return std::stoull(where.substr(where.rfind(':') + 1)); }

// A JSON ranges file; each range's line is where its element starts.
void read_json(const std::string& path, RangesFile& file, std::optional<std::int64_t>& overlap) {
  TextInput input(path);
  std::map<data::Quantities, std::uint32_t> known;  // a request set's index in file.request_sets
  known.emplace(data::Quantities{}, 0);
  const nlohmann::json doc = data::importers::parse_json_list(
      input, "ranges", [&file, &known](const nlohmann::json& element, const std::string& where) {
        if (!element.is_object()) throw data::Error(where, "a range must be an object, got " + data::importers::json_excerpt(element));
        const std::optional<std::int64_t> first = json_integer(element, "first", where);
        const std::optional<std::int64_t> count = json_integer(element, "count", where);
        const std::optional<std::int64_t> last = json_integer(element, "last", where);
        if (!first || (!count && !last)) throw data::Error(where, "a range needs \"first\" and \"count\" (or \"last\")");
        auto [set, added] = known.try_emplace(requests_of(element, where),
                                              static_cast<std::uint32_t>(file.request_sets.size()));
        if (added) file.request_sets.push_back(set->first);
        file.ranges.push_back({range_from(*first, count, last, where), line_of(where), set->second});
      });
  const std::string top = input.where(1);
  const nlohmann::json* ranges = &doc;
  if (doc.is_object()) {
    if (!doc.contains("ranges")) throw data::Error(top, "a JSON object needs a \"ranges\" array");
    if (doc.contains("overlap")) declare_overlap(overlap, *json_integer(doc, "overlap", top), top);
    ranges = &doc["ranges"];
  }
  if (!ranges->is_array()) throw data::Error(top, "expected an array of ranges");
}

// Sorted by first unit, each range starts `overlap` units before the previous one ends.
void check_tiling(const RangesFile& file) {
  auto where = [&file](const ListedRange& r) { return file.where(r); };
  const std::string declare = " (declare it with a line '# overlap N', in JSON \"overlap\": N)";
  for (std::size_t i = 0; i < file.ranges.size(); ++i) {
    const ListedRange& r = file.ranges[i];
    if (r.range.count <= file.overlap) {
      throw data::Error(where(r), "range " + r.range.end_count() + " is not longer than the declared overlap of " +
                                     std::to_string(file.overlap) + " units");
    }
    if (i == 0) continue;
    const ListedRange& before = file.ranges[i - 1];
    const std::string pair = "range " + r.range.end_count() + " and " + before.range.end_count() + " (" +
                             where(before) + ")";
    // Units in both (negative: a gap); sorted by first, only an overlap can be too wide to count.
    const std::optional<std::int64_t> both = data::checked_sub(before.range.end(), r.range.first);
    if (!both) throw data::Error(where(r), pair + " overlap by more units than 64-bit numbers hold");
    const std::int64_t shared = *both;
    if (shared < 0) {
      throw data::Error(where(r), pair + " leave units " + std::to_string(before.range.end()) + ".." +
                                     std::to_string(r.range.first - 1) + " in no range");
    }
    if (shared == file.overlap) continue;
    if (file.overlap == 0) {
      throw data::Error(where(r), pair + " overlap by " + std::to_string(shared) + " units without a declared overlap" +
                                     declare);
    }
    throw data::Error(where(r), pair + " overlap by " + std::to_string(shared) + " units, but the declared overlap is " +
                                   std::to_string(file.overlap));
  }
}

}  // namespace

Partition RangesFile::partition() const {
  Partition out;
  out.overlap = overlap;
  for (const ListedRange& r : ranges) out.ranges.push_back({r.range.first + overlap, r.range.count - overlap});
  return out;
}

std::vector<data::Quantities> RangesFile::requests() const {
  auto asking = std::find_if(ranges.rbegin(), ranges.rend(), [](const ListedRange& r) { return r.request_set != 0; });
  std::vector<data::Quantities> out;
  out.reserve(static_cast<std::size_t>(ranges.rend() - asking));
  for (auto r = ranges.begin(); r != asking.base(); ++r) out.push_back(request_sets[r->request_set]);
  return out;
}

std::vector<data::Range> RangesFile::work_ranges_in_file_order() const {
  std::vector<data::Range> out;
  out.reserve(file_order.size());
  for (std::size_t i : file_order) out.push_back(ranges[i].range);
  return out;
}

std::vector<data::Quantities> RangesFile::requests_in_file_order() const {
  if (requests().empty()) return {};
  std::vector<data::Quantities> out;
  out.reserve(file_order.size());
  for (std::size_t i : file_order) out.push_back(request_sets[ranges[i].request_set]);
  return out;
}

data::Range RangesFile::span() const {
  const std::int64_t first = ranges.front().range.first + overlap;
  return {first, ranges.back().range.end() - first};
}

RangesFile read_ranges_file(const std::string& path) {
  RangesFile file{path, 0, {}, {{}}};
  std::optional<std::int64_t> overlap;
  if (data::importers::looks_like_json(path)) {
    read_json(path, file, overlap);
  } else {
    read_text(path, file, overlap);
  }
  if (file.ranges.empty()) throw data::Error(path, "no ranges");
  file.overlap = overlap.value_or(0);
  file.ranges.shrink_to_fit();
  std::vector<std::size_t> by_first(file.ranges.size());
  std::iota(by_first.begin(), by_first.end(), std::size_t{0});
  std::stable_sort(by_first.begin(), by_first.end(),
                   [&](std::size_t a, std::size_t b) { return file.ranges[a].range.first < file.ranges[b].range.first; });
  // Into that order in place, one cycle of the permutation at a time (no second copy of the
  // ranges: at 10^7 ranges that copy made the peak of `simulate --ranges`).
  file.file_order.resize(by_first.size());
  for (std::size_t k = 0; k < by_first.size(); ++k) file.file_order[by_first[k]] = k;
  for (std::size_t k = 0; k < by_first.size(); ++k) {
    if (by_first[k] == k) continue;
    ListedRange held = std::move(file.ranges[k]);
    std::size_t to = k;
    while (by_first[to] != k) {
      const std::size_t from = by_first[to];
      file.ranges[to] = std::move(file.ranges[from]);
      by_first[to] = to;
      to = from;
    }
    file.ranges[to] = std::move(held);
    by_first[to] = to;
  }
  check_tiling(file);
  if (!data::checked_sub(file.ranges.back().range.end(), file.ranges.front().range.first + file.overlap)) {
    throw data::Error(path, too_wide("the span of the ranges"));
  }
  return file;
}

void require_within_model(const RangesFile& file, const data::CostModel& model) {
  for (const ListedRange& r : file.ranges) {
    data::require_within_model_span(model, r.range, file.where(r) + ": range " + r.range.end_count());
  }
}

}  // namespace millrace::partitioners
