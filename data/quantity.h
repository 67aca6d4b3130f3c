// Kubernetes resource quantities ("250m", "512Mi", "1.5", "2e3", "1Gi") as exact integers of
// milli-units, the way Kubernetes compares requests with what a node has left: a pod's request
// and a node's capacity are both quantities, and placement must not drift with floating point.
// The syntax is apimachinery's resource.Quantity: an unsigned decimal number (digits, optionally
// a point and more digits; a leading '+' is allowed) followed by one suffix: none, a decimal SI
// suffix (m k M G T P E), a binary one (Ki Mi Gi Ti Pi Ei) or a decimal exponent (e or E and a
// signed integer). A value that is not a whole number of milli-units rounds up, as
// Quantity.MilliValue() does ("0.1m" is 1m). Negative values, malformed text and values beyond
// 2^63 - 1 milli-units are refused with an Error naming the input and the problem.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace millrace::data {

// Amounts in milli-units by resource name, as Kubernetes names resources ("cpu", "memory",
// "nvidia.com/gpu"): what an item requests, what a machine has.
using Quantities = std::map<std::string, std::int64_t>;

// `text` in milli-units. Throws Error(where, ...) naming the text and what is wrong with it.
std::int64_t parse_quantity_milli(std::string_view text, const std::string& where);

// Canonical text of a milli-unit amount that parses back to the same amount: a whole number
// when it is one ("2", "536870912"), else milli-units ("250m").
std::string format_quantity_milli(std::int64_t milli);

// "cpu=2,memory=4Gi" (a machine, a budget, an item's requests) as milli-units by resource name.
// Throws Error(where, ...) naming the text for an empty list, a part without NAME=QUANTITY, a
// resource given twice or a malformed quantity.
Quantities parse_quantity_list(std::string_view text, const std::string& where);

// The first resource (by name) of which `requests` ask more than `available` holds (a resource
// absent from it holds none), or "" when every request fits.
std::string short_resource(const Quantities& requests, const Quantities& available);

// "cpu 2, memory 4294967296": amounts by resource name as format_quantity_milli writes them.
std::string quantities_text(const Quantities& milli);

}  // namespace millrace::data
