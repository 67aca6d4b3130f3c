#include "data/synthetic_recording.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "data/uniform_draws.h"

namespace millrace::data {

namespace {

// Standard normal by Box-Muller.
double normal_draw(std::mt19937_64& rng) {
  const double radius = std::sqrt(-2.0 * std::log(unit_draw(rng)));
  return radius * std::cos(2.0 * std::numbers::pi * unit_draw(rng));
}

}  // namespace

std::vector<Observation> synthetic_recording(const CostModel& truth, const SyntheticRecordingOptions& options) {
  std::mt19937_64 rng(options.seed);
  const double sigma = options.noise_sigma;
  const auto mean = static_cast<double>(options.mean_length);
  std::vector<Observation> out;
  for (std::int64_t first = options.span.first; first < options.span.end();) {
    const std::int64_t wanted =
        options.varied_lengths ? static_cast<std::int64_t>(mean * (0.25 + 1.5 * unit_draw(rng))) : options.mean_length;
    const Range range{first, std::clamp<std::int64_t>(wanted, 1, options.span.end() - first)};
    const double factor = sigma > 0 ? std::exp(sigma * normal_draw(rng) - sigma * sigma / 2) : 1.0;
    out.push_back({range, static_cast<Micros>(truth.cost(range) * factor + 0.5), std::nullopt});
    first = range.end();
    if (options.gap_probability > 0 && unit_draw(rng) < options.gap_probability) {
      first += static_cast<std::int64_t>(mean * unit_draw(rng)) + 1;
    }
  }
  return out;
}

CostModel smooth_truth(const Range& span, int bins) {
  std::vector<CostBin> out;
  const std::int64_t width = (span.count + bins - 1) / bins;
  for (std::int64_t first = span.first; first < span.end(); first += width) {
    const Range range{first, std::min(width, span.end() - first)};
    const double x = (static_cast<double>(first - span.first) + 0.5 * static_cast<double>(range.count)) /
                     static_cast<double>(span.count);
    const double hot = std::abs(x - 0.7) < 0.025 ? 4.0 : 1.0;
    const double density = 40'000.0 * (1.0 + 0.6 * std::sin(6.0 * std::numbers::pi * x)) * hot;
    out.push_back({range, 20e6 + 40e6 * x, density});
  }
  return CostModel(std::move(out), "units", "smooth_truth");
}

}  // namespace millrace::data
