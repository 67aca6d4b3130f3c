// Parsing one field of an input line. Every parser names where the field is (`where`, e.g.
// "trace.csv:17") and what it is (`what`, e.g. "duration_s") in the Error it throws, so a
// malformed value is reported the same way by every importer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "data/records.h"
#include "data/time.h"

namespace millrace::data::importers {

std::int64_t parse_int(std::string_view text, const std::string& where, std::string_view what);
double parse_real(std::string_view text, const std::string& where, std::string_view what);
// A non-negative amount of time given in seconds (or milliseconds), rounded to microseconds.
Micros parse_seconds(std::string_view text, const std::string& where, std::string_view what);
Micros parse_millis(std::string_view text, const std::string& where, std::string_view what);
// "END/COUNT": the inclusive last unit and the unit count (> 0) of a range; refused when the
// range or its exclusive end (END + 1) does not fit in 64 bits.
Range parse_end_count(std::string_view text, const std::string& where);
// Throws unless count > 0.
void check_count(std::int64_t count, const std::string& where, std::string_view what);

}  // namespace millrace::data::importers
