#include "cli/duration_option.h"

#include <utility>
#include <vector>

namespace millrace::cli {

sim::StartupLatency parse_startup_latency(const std::string& text, const std::string& option) {
  std::vector<data::Micros> samples;
  std::size_t from = 0;
  for (std::size_t comma; (comma = text.find(',', from)) != std::string::npos; from = comma + 1) {
    samples.push_back(data::parse_duration(text.substr(from, comma - from), option));
  }
  samples.push_back(data::parse_duration(text.substr(from), option));
  sim::StartupLatency latency;
  if (samples.size() == 1) {
    latency.constant = samples[0];
  } else {
    latency.samples = std::move(samples);
  }
  return latency;
}

}  // namespace millrace::cli
