// Parsing one field of an input line. Every parser names where the field is (`where`, e.g.
// "trace.csv:17") and what it is (`what`, e.g. "duration_s") in the Error it throws, quotes the
// value as a bounded excerpt (data/text_excerpt.h), and checks the value's range with
// data/checked_numbers.h, so a malformed or out-of-range value is reported the same way by every
// importer and never wraps around into data.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "data/records.h"
#include "data/time.h"

namespace millrace::data::importers {

std::int64_t parse_int(std::string_view text, const std::string& where, std::string_view what);
// An integer that must fit an int (attempt numbers, exit codes, priorities).
int parse_int32(std::string_view text, const std::string& where, std::string_view what);
double parse_real(std::string_view text, const std::string& where, std::string_view what);
// A non-negative amount of time given in seconds (or milliseconds), rounded to microseconds;
// at most kMaxMicros.
Micros parse_seconds(std::string_view text, const std::string& where, std::string_view what);
Micros parse_millis(std::string_view text, const std::string& where, std::string_view what);
// "END/COUNT": the inclusive last unit and the unit count (> 0) of a range; refused when the
// range or its exclusive end (END + 1) does not fit in 64 bits.
Range parse_end_count(std::string_view text, const std::string& where);
// The range of a parsed END (inclusive) and COUNT; throws unless COUNT > 0 and the first unit
// END - COUNT + 1 and the end fit in 64 bits. `what` names the fields ("range END/COUNT").
Range end_count_range(std::int64_t end, std::int64_t count, const std::string& where, std::string_view what);
// The range [first, first + count); throws unless count > 0 and first + count fits in 64 bits.
Range first_count_range(std::int64_t first, std::int64_t count, const std::string& where, std::string_view what);
// Throws unless count > 0.
void check_count(std::int64_t count, const std::string& where, std::string_view what);
// a + b for two times, throwing unless the sum is at most kMaxMicros.
Micros time_sum(Micros a, Micros b, const std::string& where, std::string_view what);

}  // namespace millrace::data::importers
