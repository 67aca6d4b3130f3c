// A ranges file: the ranges a team's own generator cut, read so that millrace can score them
// beside its built-in partitioners (`compare --ranges`) or simulate them (`simulate --ranges`).
// Three formats, told apart by content:
//   END/COUNT   one range per line, "LAST/COUNT" as stellar's catch-up generators print them
//               (and `partition --format end-count`), in any order
//   CSV         "first,count" or "first,last" (inclusive last); the header is optional, and
//               without one the two columns are first,count. With a header, other columns
//               are ignored (so `partition --format csv` output reads back)
//   JSON        an array of {"first", "count" | "last"} objects, or an object holding it under
//               "ranges" with an optional "overlap" (what `partition --format json` writes);
//               "request.NAME" fields are the range's resource requests (Kubernetes quantities,
//               data/quantity.h), as in timing records
// In the text formats, '#' starts a comment line; "# overlap N" declares the overlap.
//
// The ranges are the work as handed out, and the file's order is the plan order (a queue hands
// them out in it; `file_order`). Sorted by their first unit, each must start exactly
// `overlap` units before the previous one ends: an undeclared overlap, an overlap other than
// the declared one, or a gap is refused naming file:line of both ranges. With overlap N, the
// span covered is the ranges without their first N units, as partitioners/partitioner.h cuts it.
// Every error names the file and line ("cuts.txt:7: ..."; JSON: the line where the range starts).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "data/cost_model.h"
#include "data/records.h"
#include "partitioners/partitioner.h"

namespace millrace::partitioners {

struct ListedRange {
  data::Range range;              // the work range as listed (overlap included)
  std::size_t line = 0;           // its line in the file (JSON: where its element starts)
  std::uint32_t request_set = 0;  // its requests: RangesFile::request_sets[request_set]
};

struct RangesFile {
  std::string path;
  std::int64_t overlap = 0;
  std::vector<ListedRange> ranges;  // sorted by first unit
  // The distinct request sets of the ranges (JSON "request.NAME"), each kept once (a file of a
  // million ranges mostly repeats one or two), the first the empty one.
  std::vector<data::Quantities> request_sets{{}};
  // Positions in `ranges` in the order the file lists them: the plan order.
  std::vector<std::size_t> file_order{};

  // "file:line" of a range, as errors name it (kept as a number per range: 32 bytes a range,
  // where a "file:line" string took 56 and, past 15 characters, 32 more on the heap).
  std::string where(const ListedRange& range) const { return path + ":" + std::to_string(range.line); }
  // The tiling (each range without its first `overlap` units) and the overlap.
  Partition partition() const;
  // Each range's requests in the order of partition().work_ranges(), up to the last range that
  // asks for something: empty when none does (as scheduler::PlannedWork takes them).
  std::vector<data::Quantities> requests() const;
  data::Range span() const;  // the units the tiling covers
  // partition().work_ranges() and requests() in the file's order (requests: empty when none asks).
  std::vector<data::Range> work_ranges_in_file_order() const;
  std::vector<data::Quantities> requests_in_file_order() const;
};

// Reads and checks a ranges file. Throws data::Error naming file:line for a malformed line, a
// range with COUNT < 1, overlapping ranges without (or beyond) a declared overlap, and gaps.
RangesFile read_ranges_file(const std::string& path);

// Throws data::Error naming file:line of the first range reaching outside the model's span.
void require_within_model(const RangesFile& file, const data::CostModel& model);

}  // namespace millrace::partitioners
