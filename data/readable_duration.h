// How a person reads millrace's numbers: the one module every command formats durations,
// bands, counts and node time through, so a figure reads the same wherever it is printed.
// Human units first ("24.62 h", "14.0 s", "850 ms"; from an hour up, hours with two decimals, the
// unit teams plan day-long runs in), exact seconds only beside them and without a ".000" for
// whole seconds ("24.62 h (88,627 s)"), thousands grouped ("3,396 ranges"), and a count's noun
// in the singular for one ("1 item failed"), memory in binary units ("16Gi").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "data/quantity.h"
#include "data/time.h"

namespace millrace::data {

// "850 ms", "12.3 s", "4.5 min", "2.25 h"; nothing at all reads "0 s".
std::string readable_duration(Micros us);

// The seconds exactly, at most to the millisecond, grouped, without trailing zeros: "88,627 s",
// "12.345 s", "0.25 s", "0 s".
std::string exact_seconds(Micros us);

// The readable duration, and the exact seconds after it where the readable one rounds:
// "24.62 h (88,627 s)", "4.5 min (270 s)", "12.345 s", "850 ms", "0 s".
std::string duration_text(Micros us);

// A band of two durations in the unit of the larger: "23.91-25.40 h", "12.0-14.5 s".
std::string readable_band(Micros low, Micros high);

// A quantity for a table column, as many digits as it needs and no more: "4,727" from 100 up,
// "12.50" from 1, two significant digits below ("0.0068"), "0" for nothing; never "0.0" for a
// small non-zero value.
std::string readable_number(double value);

// "3,396", "-9,536", "54,326,463".
std::string grouped(std::int64_t n);

// `n` and its noun, singular for one: counted(1, "item") "1 item", counted(3396, "range")
// "3,396 ranges"; `many` for plurals not made with "s" (counted(2, "replica") is regular).
std::string counted(std::int64_t n, std::string_view one, std::string_view many = {});

// Node (or slot) time in the unit that fits it: "4,727 node-hours", "12.50 node-hours",
// "32.5 node-minutes", "2.0 node-seconds". `noun` names the thing held ("node", "slot").
std::string node_time(double hours, std::string_view noun = "node");

// An amount of `resource` in milli-units (data/quantity.h) as a person reads it and Kubernetes
// writes it: bytes of memory and storage ("memory", "ephemeral-storage", "storage",
// "hugepages-*") in the largest binary unit that divides them ("16Gi", "512Mi", "1500"), any
// other amount as format_quantity_milli writes it ("2", "250m"). It parses back to the same amount.
std::string readable_quantity(const std::string& resource, std::int64_t milli);

// "cpu 2, memory 4Gi": amounts by resource name as readable_quantity writes them.
std::string readable_quantities(const Quantities& milli);

}  // namespace millrace::data
