// What `millrace` says about a command line CLI11 could not parse: its message, and for an unknown
// command or option the nearest one the user may have meant (`simulat` -> did you mean
// `simulate`; `--worker` -> `--workers`), or the list to choose from when none is near. Nearness
// is the edit distance (insertions, deletions, substitutions, swaps of neighbours).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace millrace::cli {

// The name of `names` nearest to `typed` when near enough to be a slip of the keyboard (at most
// one edit in four characters, at least one) or when `typed` begins exactly one of them; none
// otherwise, or when two names are equally near.
std::optional<std::string> nearest_name(std::string_view typed, const std::vector<std::string>& names);

// The one line (without "millrace: ") to print for `error`, raised parsing `app`'s command line.
std::string parse_error_text(const CLI::App& app, const CLI::ParseError& error);

}  // namespace millrace::cli
