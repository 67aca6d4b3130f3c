#include "cli/option_checks.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace millrace::cli {

namespace {

std::string number_text(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

// What --help names the value of a whole-number option: "INT", "INT>=1" or "INT 0..65535"; a
// bound beyond an int's is no bound a user meets, so it is left out.
std::string whole_number_name(std::int64_t min, std::int64_t max) {
  const bool has_min = min > std::numeric_limits<int>::min();
  const bool has_max = max < std::numeric_limits<int>::max();
  if (has_min && has_max) return "INT " + std::to_string(min) + ".." + std::to_string(max);
  return has_min ? "INT>=" + std::to_string(min) : has_max ? "INT<=" + std::to_string(max) : "INT";
}

}  // namespace

CLI::Validator whole_number(std::int64_t min, std::int64_t max) {
  const std::string range = std::to_string(min) + " to " + std::to_string(max);
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        const char* begin = text.data() + (text.starts_with('+') ? 1 : 0);
        const char* end = text.data() + text.size();
        std::int64_t value = 0;
        const auto [stop, error] = std::from_chars(begin, end, value);
        if (text.empty() || error == std::errc::invalid_argument || stop != end) {
          return "'" + text + "' is not a whole number (expected " + range + ")";
        }
        if (error == std::errc::result_out_of_range || value < min || value > max) {
          return text + " is out of range (expected a whole number from " + range + ")";
        }
        text = std::to_string(value);
        return "";
      },
      whole_number_name(min, max));
}

CLI::Validator real_number(double min, double max) {
  const std::string range = number_text(min) + " to " + number_text(max);
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        double value = 0;
        const auto [stop, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (text.empty() || error != std::errc() || stop != text.data() + text.size()) {
          return "'" + text + "' is not a number (expected " + range + ")";
        }
        if (!std::isfinite(value) || value < min || value > max) {
          return text + " is out of range (expected a finite number from " + range + ")";
        }
        return "";
      },
      "NUMBER " + number_text(min) + ".." + number_text(max));
}

CLI::Option* add_seed_option(CLI::App& command, std::uint64_t& seed) {
  const std::string range = "0 to " + std::to_string(std::numeric_limits<std::uint64_t>::max());
  const CLI::Validator seed_number(
      [range](std::string& text) -> std::string {
        const char* begin = text.data() + (text.starts_with('+') ? 1 : 0);
        const char* end = text.data() + text.size();
        std::uint64_t value = 0;
        const auto [stop, error] = std::from_chars(begin, end, value);
        if (text.starts_with('-') && text.size() > 1 && std::isdigit(static_cast<unsigned char>(text[1]))) {
          return text + " is out of range (expected a whole number from " + range + ")";
        }
        if (text.empty() || error == std::errc::invalid_argument || stop != end) {
          return "'" + text + "' is not a whole number (expected " + range + ")";
        }
        if (error == std::errc::result_out_of_range) {
          return text + " is out of range (expected a whole number from " + range + ")";
        }
        text = std::to_string(value);
        return "";
      },
      "SEED");
  return command.add_option("--seed", seed, "Seed of every random draw")->check(seed_number)->capture_default_str();
}

CLI::Validator tcp_port() { return whole_number(0, 65535); }

namespace {

// How a duration option's value reaches CLI11: plain decimal seconds for a `double`, integer
// microseconds for a data::Micros, or integer seconds for a field the Kubernetes API counts in
// whole seconds (activeDeadlineSeconds).
enum class DurationAs { kSeconds, kMicros, kWholeSeconds };

// A duration (duration_problem: the one parser of durations) rewritten as `as` says, for CLI11
// to convert into the option's type.
CLI::Validator duration_in(data::Micros max, DurationAs as) {
  return CLI::Validator(
      [max, as](std::string& text) -> std::string {
        data::Micros micros = 0;
        if (std::string problem = data::duration_problem(text, max, micros); !problem.empty()) {
          return "'" + text + "' " + problem;
        }
        switch (as) {
          case DurationAs::kSeconds:
            text = number_text(data::seconds_from_micros(micros));
            break;
          case DurationAs::kMicros:
            text = std::to_string(micros);
            break;
          case DurationAs::kWholeSeconds:
            if (micros % data::kMicrosPerSecond != 0) return "'" + text + "' is not a whole number of seconds";
            text = std::to_string(micros / data::kMicrosPerSecond);
            break;
        }
        return "";
      },
      max < data::kMaxDuration ? "DURATION<=" + data::typed_duration_text(max) : std::string("DURATION"));
}

}  // namespace

CLI::Validator seconds(data::Micros max) { return duration_in(max, DurationAs::kSeconds); }

CLI::Validator micros(data::Micros max) { return duration_in(max, DurationAs::kMicros); }

CLI::Validator whole_seconds(data::Micros max) { return duration_in(max, DurationAs::kWholeSeconds); }

}  // namespace millrace::cli
