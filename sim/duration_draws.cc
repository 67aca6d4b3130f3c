#include "sim/duration_draws.h"

#include <cmath>
#include <random>

#include "data/checked_numbers.h"
#include "data/uniform_draws.h"

namespace millrace::sim {

std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t duration_seed(std::uint64_t simulation_seed) {
  constexpr std::uint64_t kDurationStream = 0x6475726174696f6eULL;  // "duration"
  return splitmix(simulation_seed ^ kDurationStream);
}

std::vector<data::Micros> draw_durations(const data::CostModel& model, const std::vector<data::Range>& ranges,
                                         std::uint64_t seed, bool noise) {
  std::vector<data::Micros> durations;
  durations.reserve(ranges.size());
  const bool draw = noise && !model.noise().empty();
  std::mt19937_64 engine(seed);
  // The whole run's factor from a stream of its own: the ranges' draws are the same with it or without.
  double run_factor = 1;
  if (draw && model.noise().runs().identified()) {
    constexpr std::uint64_t kRunStream = 0x72756e2d77696465ULL;  // "run-wide"
    std::mt19937_64 run_engine(splitmix(seed ^ kRunStream));
    run_factor = model.noise().runs().draw(data::unit_draw(run_engine));
  }
  for (const data::Range& r : ranges) {
    // Held within the simulator's clock (data/checked_numbers.h), never wrapped.
    const data::Micros predicted = data::saturated_micros(static_cast<double>(model.predict(r)));
    if (!draw) {
      durations.push_back(predicted);
      continue;
    }
    const double factor = run_factor * model.noise().factor(r.first, r.count, data::unit_draw(engine));
    durations.push_back(data::saturated_micros(static_cast<double>(predicted) * factor));
  }
  return durations;
}

}  // namespace millrace::sim
