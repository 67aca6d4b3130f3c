// Portable uniform draws from a seeded std::mt19937_64. The engine's raw output is fixed bit for
// bit by the C++ standard; std::uniform_*_distribution and std::normal_distribution are not (their
// draws differ between standard libraries), so every seeded draw in millrace and its tests goes
// through these transforms instead, and equal seeds give equal draws on every platform.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>

namespace millrace::data {

// Uniform in the open interval (0, 1): the top 53 bits k of one output give (k + 0.5) / 2^53,
// never 0 (a logarithm may take it) and never 1.
inline double unit_draw(std::mt19937_64& engine) { return (static_cast<double>(engine() >> 11) + 0.5) * 0x1.0p-53; }

// Uniform in [lo, hi) (one output).
inline double real_draw(std::mt19937_64& engine, double lo, double hi) { return lo + (hi - lo) * unit_draw(engine); }

// Uniform over the integers lo..hi, both included (one output; hi - lo below 2^53).
inline std::int64_t integer_draw(std::mt19937_64& engine, std::int64_t lo, std::int64_t hi) {
  const double span = static_cast<double>(hi - lo) + 1;
  return std::min(hi, lo + static_cast<std::int64_t>(unit_draw(engine) * span));
}

}  // namespace millrace::data
