#include "cli/duration_option.h"

#include <exception>
#include <utility>
#include <vector>

#include "data/error.h"

namespace millrace::cli {

data::Micros parse_duration(const std::string& text, const std::string& option) {
  static const std::pair<const char*, double> kUnits[] = {
      {"us", 1}, {"ms", 1e3}, {"s", 1e6}, {"m", 60e6}, {"h", 3600e6}};
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = used == 0 ? "?" : text.substr(used);
  double scale = unit.empty() ? 1e6 : 0;
  for (const auto& [name, factor] : kUnits) {
    if (unit == name) scale = factor;
  }
  if (used == 0 || scale == 0 || value < 0) {
    throw data::Error(option + " '" + text + "'", "not a duration (e.g. 30s, 500ms, 2m, 1h)");
  }
  return static_cast<data::Micros>(value * scale + 0.5);
}

sim::StartupLatency parse_startup_latency(const std::string& text, const std::string& option) {
  std::vector<data::Micros> samples;
  std::size_t from = 0;
  for (std::size_t comma; (comma = text.find(',', from)) != std::string::npos; from = comma + 1) {
    samples.push_back(parse_duration(text.substr(from, comma - from), option));
  }
  samples.push_back(parse_duration(text.substr(from), option));
  sim::StartupLatency latency;
  if (samples.size() == 1) {
    latency.constant = samples[0];
  } else {
    latency.samples = std::move(samples);
  }
  return latency;
}

}  // namespace millrace::cli
