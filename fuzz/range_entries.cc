// The range parsers' fuzz entry points (entry_points.h).
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#include "cli/span_option.h"
#include "data/error.h"
#include "data/importers/fields.h"
#include "fuzz/entry_points.h"
#include "partitioners/preset.h"
#include "partitioners/ranges_file.h"

namespace millrace::fuzz {

namespace {

void check_range(const data::Range& range, std::string_view text) {
  std::string what = "'";  // built in steps: GCC 12 warns (-Wrestrict) falsely on "'" + std::string(text)
  what.append(text).append("'");
  if (range.count <= 0) throw ContractViolation(what + " parsed to an empty range");
  (void)range.end();  // UBSan: the end must fit
  if (data::importers::parse_end_count(range.end_count(), "round trip") != range) {
    throw ContractViolation(what + " does not survive END/COUNT -> text -> END/COUNT");
  }
}

}  // namespace

void range_text(std::string_view input, const InputFolder&) {
  run_all({[&] { check_range(data::importers::parse_end_count(input, "fuzz"), input); },
           [&] { check_range(cli::parse_span(std::string(input)), input); }});
}

void preset_span(std::string_view input, const InputFolder&) {
  std::array<std::int64_t, 4> values{};
  std::memcpy(values.data(), input.data(), std::min(input.size(), sizeof values));
  const auto [tip, start, length, align] = values;
  (void)partitioners::ends_checkpoint(tip, align);
  const data::Range span = partitioners::tip_down_span(tip, start, length);
  if (span.count <= 0 || span.last() != tip || span.count % length != 0 || span.first > start + 1) {
    throw ContractViolation("tip_down_span(" + std::to_string(tip) + ", " + std::to_string(start) + ", " +
                            std::to_string(length) + ") = [" + std::to_string(span.first) + ", +" +
                            std::to_string(span.count) + ") is not a tip-down span");
  }
}

void ranges_file(std::string_view input, const InputFolder& folder) {
  const partitioners::RangesFile file = partitioners::read_ranges_file(folder.write("ranges", input));
  if (file.ranges.empty()) throw ContractViolation("a ranges file accepted with no ranges");
  for (std::size_t i = 0; i < file.ranges.size(); ++i) {
    const partitioners::ListedRange& r = file.ranges[i];
    if (r.range.count <= file.overlap) throw ContractViolation(file.where(r) + ": accepted a range no longer than the overlap");
    (void)r.range.end();  // UBSan: the end must fit
    if (i > 0 && r.range.first != file.ranges[i - 1].range.end() - file.overlap) {
      throw ContractViolation(file.where(r) + ": accepted a range that does not start overlap units before the previous end");
    }
  }
  const partitioners::Partition tiling = file.partition();
  const data::Range span = file.span();
  std::int64_t next = span.first;
  for (const data::Range& range : tiling.ranges) {
    if (range.count <= 0 || range.first != next) throw ContractViolation("the tiling of an accepted file is not contiguous");
    next = range.end();
  }
  if (next != span.end()) throw ContractViolation("the tiling of an accepted file does not cover its span");
}

}  // namespace millrace::fuzz
