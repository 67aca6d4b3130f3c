// The checks of the commands' numeric and named options, shared by every command as CLI11
// validators, so a bad value is refused while the command line is parsed: before a command opens
// its store, let alone writes to it. Each message names the value and the accepted range
// (CLI11 prefixes the option's name); names (a policy, a mode) are checked with CLI::IsMember. Whole numbers and seconds are rewritten into plain
// decimal before CLI11 converts them, so "010" is not read as octal, nor "0x10" as hex, and
// seconds options also take durations ("90", "1.5m", "500ms"; data/typed_duration.h).
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include <CLI/CLI.hpp>

#include "data/typed_duration.h"

namespace millrace::cli {

// A whole number in [min, max] (for an `int` option, keep max at the default).
CLI::Validator whole_number(std::int64_t min, std::int64_t max = std::numeric_limits<int>::max());

// A finite real number in [min, max] (NaN and infinities refused).
CLI::Validator real_number(double min, double max);

// The --seed option of every command that draws at random: a whole number from 0 to 2^64 - 1.
// "-1" and numbers past 2^64 - 1 are refused (CLI11's own conversion wrapped them to
// 18446744073709551615 silently), so equal command lines mean equal seeds.
CLI::Option* add_seed_option(CLI::App& command, std::uint64_t& seed);

// A TCP port: 0 (any free port) to 65535.
CLI::Validator tcp_port();

// A duration in [0, max] ("90s", "30m", "48h", "500ms", or bare seconds), rewritten as seconds
// for a `double` option.
CLI::Validator seconds(data::Micros max = data::kMaxDuration);

// The same durations, rewritten as integer microseconds for a data::Micros option: what a
// duration option of every command uses, so the same flag reads the same everywhere.
CLI::Validator micros(data::Micros max = data::kMaxDuration);

// The same durations when they are a whole number of seconds ("1.5m", "90"; not "1500ms"),
// rewritten as integer seconds for an option the Kubernetes API counts in seconds.
CLI::Validator whole_seconds(data::Micros max = data::kMaxDuration);

}  // namespace millrace::cli
