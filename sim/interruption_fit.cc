#include "sim/interruption_fit.h"

#include <algorithm>
#include <cstdio>

#include <boost/math/special_functions/gamma.hpp>

#include "data/readable_duration.h"

namespace millrace::sim {

namespace {

// Spot nodes watched and their departures, summed.
struct Watched {
  std::size_t nodes = 0;
  std::size_t departures = 0;
  data::Micros watched = 0;
};

data::PoolInterruptions estimate(const Watched& w) {
  data::PoolInterruptions p;
  p.nodes = w.nodes;
  p.departures = w.departures;
  p.node_hours = static_cast<double>(w.watched) / static_cast<double>(data::kMicrosPerHour);
  if (!(p.node_hours > 0)) return p;
  const auto k = static_cast<double>(w.departures);
  p.rate = k / p.node_hours;
  p.low = w.departures == 0 ? 0 : boost::math::gamma_p_inv(k, 0.05) / p.node_hours;
  p.high = boost::math::gamma_p_inv(k + 1, 0.95) / p.node_hours;
  return p;
}

std::string rate_text(double rate) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", rate);
  return text;
}

std::string estimate_text(const data::PoolInterruptions& p) {
  return rate_text(p.rate) + " per node-hour (90 % " + rate_text(p.low) + "-" + rate_text(p.high) + "), " +
         data::counted(static_cast<std::int64_t>(p.departures), "departure") + " of " +
         data::counted(static_cast<std::int64_t>(p.nodes), "spot node") + " over " +
         data::node_time(p.node_hours);
}

}  // namespace

data::SpotInterruptions fit_interruptions(const std::vector<Recording>& recordings) {
  Watched all;
  std::map<std::string, Watched> by_pool;
  std::string unrecorded;
  for (const Recording& recording : recordings) {
    if (!recording.node_arrivals_unrecorded.empty()) {
      unrecorded += (unrecorded.empty() ? "" : "; ") + ("run " + recording.name + ": " + recording.node_arrivals_unrecorded);
    }
    data::Micros end = 0;
    for (const data::Attempt& a : recording.attempts) end = std::max(end, a.end);
    for (const data::NodeArrival& n : recording.node_arrivals) {
      if (n.departed) end = std::max(end, *n.departed);
    }
    for (const data::NodeArrival& n : recording.node_arrivals) {
      if (n.capacity_type != "spot") continue;
      const std::optional<data::Micros> arrived = n.present_at_start ? 0 : n.ready ? n.ready : n.created;
      if (!arrived) continue;
      const data::Micros from = std::max<data::Micros>(0, *arrived);
      const data::Micros to = n.departed.value_or(end);
      if (to <= from) continue;
      for (Watched* w : {&all, n.pool.empty() ? nullptr : &by_pool[n.pool]}) {
        if (w == nullptr) continue;
        ++w->nodes;
        w->departures += n.departed ? 1 : 0;
        w->watched += to - from;
      }
    }
  }
  data::SpotInterruptions fit;
  fit.pooled = estimate(all);
  for (const auto& [pool, watched] : by_pool) {
    if (watched.departures > 0) fit.by_pool[pool] = estimate(watched);
  }
  if (all.nodes == 0) {
    fit.unidentified = "no spot node recorded" + (unrecorded.empty() ? std::string() : " (" + unrecorded + ")");
  } else if (all.departures == 0) {
    fit.unidentified = data::counted(static_cast<std::int64_t>(all.nodes), "spot node") + " watched over " +
                       data::node_time(fit.pooled.node_hours) + ", none seen to leave (the rate is below " +
                       rate_text(fit.pooled.high) + " per node-hour at 95 %)";
  }
  return fit;
}

std::string interruptions_text(const data::SpotInterruptions& interruptions) {
  if (!interruptions.identified()) return "not identified: " + interruptions.unidentified;
  std::string text = estimate_text(interruptions.pooled);
  for (const auto& [pool, p] : interruptions.by_pool) text += "; pool " + pool + ": " + estimate_text(p);
  return text;
}

}  // namespace millrace::sim
