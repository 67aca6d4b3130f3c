// How long a spot node lives before it is taken back: a distribution of node lifetimes, given in
// a pools file's `lifetime` field instead of an `interruption_rate` (sim/node_pools.h), spelled
//   weibull:shape=K,scale=D      Weibull, P(life > t) = exp(-(t / D)^K): K < 1, most nodes taken
//                                back young and the survivors living long; K = 1, exponential
//   exponential:mean=D           exponential with mean D (the same as interruption_rate 1/D h)
// D a duration as the options take it (data/typed_duration.h: 12h, 90m, 3600). Lives are drawn
// by inversion from one portable uniform draw (data/uniform_draws.h) each, so equal seeds give
// equal lives everywhere; the closed forms (mean, quantile, survival) are what tests check the
// draws against and what the survivability check (sim/spot_capacity.h) reads.
#pragma once

#include <optional>
#include <random>
#include <string>

#include "data/time.h"

namespace millrace::sim {

struct NodeLifetime {
  double shape = 1;        // Weibull's K (1: exponential)
  data::Micros scale = 0;  // Weibull's D: the life 1 - 1/e of the nodes fall short of
  std::string text;        // as given, for messages
};

// Throws data::Error naming `where` and the text: an unknown family (listing the known ones), a
// missing or unknown parameter, a shape that is not a finite number above 0, a duration that is
// not one or is 0.
NodeLifetime parse_node_lifetime(const std::string& text, const std::string& where);

// The mean life, D x Gamma(1 + 1/K), in hours.
double mean_hours(const NodeLifetime& lifetime);

// The life a share q (0 < q < 1) of nodes fall short of: D x (-ln(1 - q))^(1/K).
data::Micros lifetime_quantile(const NodeLifetime& lifetime, double q);

// The chance an attempt lasting `duration`, started at a moment of a node's life taken at random
// over its whole life (the node's age then distributed as a renewal process's), finishes before
// the node goes: the integral of P(life > t) from `duration` on over the mean life, which is the
// regularized upper incomplete gamma Q(1/K, (duration / D)^K) (exp(-duration / mean) when
// exponential).
double attempt_survival(const NodeLifetime& lifetime, data::Micros duration);

// One node's life: D x (-ln U)^(1/K) from one uniform U of `rng`; nullopt (never taken back)
// past a thousand years.
std::optional<data::Micros> draw_node_lifetime(const NodeLifetime& lifetime, std::mt19937_64& rng);

}  // namespace millrace::sim
