// A duration in the unit that fits it, for reports read by people: "850 ms", "12.3 s",
// "4.5 min", "2.25 h". A 12-second run reads "12.3 s", not "0.00 h"; from an hour up, hours
// with two decimals, the unit teams plan day-long runs in.
#pragma once

#include <string>

#include "data/time.h"

namespace millrace::data {

std::string readable_duration(Micros us);

}  // namespace millrace::data
