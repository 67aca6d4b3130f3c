#include "sim/node_lifetime.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include <boost/math/special_functions/gamma.hpp>

#include "data/error.h"
#include "data/importers/fields.h"
#include "data/registry.h"
#include "data/typed_duration.h"
#include "data/uniform_draws.h"

namespace millrace::sim {

namespace {

// A family: the parameters it takes and how they make a Weibull lifetime.
struct Family {
  std::vector<std::string> names;  // of its parameters
  const char* parameters;          // for messages
  NodeLifetime (*make)(const std::map<std::string, std::string>& given, const std::string& where);
};

std::string take(const std::map<std::string, std::string>& given, const std::string& name, const std::string& where,
                 const char* parameters) {
  const auto found = given.find(name);
  if (found == given.end()) throw data::Error(where, "lifetime needs " + name + "= (" + parameters + ")");
  return found->second;
}

data::Micros positive_duration(const std::string& text, const std::string& where, const std::string& what) {
  const data::Micros d = data::parse_duration(text, where + ": lifetime " + what);
  if (d <= 0) throw data::Error(where, "lifetime " + what + "=" + text + " must be above 0");
  return d;
}

constexpr const char* kWeibullParameters = "weibull:shape=K,scale=DURATION, e.g. weibull:shape=0.8,scale=12h";
constexpr const char* kExponentialParameters = "exponential:mean=DURATION, e.g. exponential:mean=20h";

const data::Registry<Family>& families() {
  static const data::Registry<Family> registry = [] {
    data::Registry<Family> r("lifetime family");
    r.add("weibull", {{"shape", "scale"}, kWeibullParameters, [](const auto& given, const std::string& where) {
                        const std::string shape_text = take(given, "shape", where, kWeibullParameters);
                        const double shape = data::importers::parse_real(shape_text, where, "lifetime shape");
                        if (!(shape > 0) || !std::isfinite(shape)) {
                          throw data::Error(where, "lifetime shape=" + shape_text + " must be a number above 0");
                        }
                        return NodeLifetime{
                            shape, positive_duration(take(given, "scale", where, kWeibullParameters), where, "scale"),
                            {}};
                      }});
    r.add("exponential", {{"mean"}, kExponentialParameters, [](const auto& given, const std::string& where) {
                            return NodeLifetime{
                                1,
                                positive_duration(take(given, "mean", where, kExponentialParameters), where, "mean"),
                                {}};
                          }});
    return r;
  }();
  return registry;
}

double hours(data::Micros t) { return static_cast<double>(t) / static_cast<double>(data::kMicrosPerHour); }

}  // namespace

NodeLifetime parse_node_lifetime(const std::string& text, const std::string& where) {
  const std::size_t colon = text.find(':');
  const Family& family = families().find(text.substr(0, colon), where + ": lifetime");
  std::map<std::string, std::string> given;
  std::size_t at = colon == std::string::npos ? text.size() : colon + 1;
  while (at < text.size()) {
    std::size_t end = text.find(',', at);
    if (end == std::string::npos) end = text.size();
    const std::string part = text.substr(at, end - at);
    const std::size_t equals = part.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw data::Error(where, "lifetime '" + text + "': '" + part + "' is no NAME=VALUE (" + family.parameters + ")");
    }
    const std::string name = part.substr(0, equals);
    const bool known = std::find(family.names.begin(), family.names.end(), name) != family.names.end();
    if (!known || !given.emplace(name, part.substr(equals + 1)).second) {
      throw data::Error(where, "lifetime '" + text + "': unknown or repeated parameter '" + name + "' (" +
                                   family.parameters + ")");
    }
    at = end + 1;
  }
  NodeLifetime lifetime = family.make(given, where);
  lifetime.text = text;
  return lifetime;
}

double mean_hours(const NodeLifetime& lifetime) { return hours(lifetime.scale) * std::tgamma(1 + 1 / lifetime.shape); }

data::Micros lifetime_quantile(const NodeLifetime& lifetime, double q) {
  return static_cast<data::Micros>(
      std::llround(static_cast<double>(lifetime.scale) * std::pow(-std::log1p(-q), 1 / lifetime.shape)));
}

double attempt_survival(const NodeLifetime& lifetime, data::Micros duration) {
  const double x = std::pow(static_cast<double>(duration) / static_cast<double>(lifetime.scale), lifetime.shape);
  return boost::math::gamma_q(1 / lifetime.shape, x);
}

std::optional<data::Micros> draw_node_lifetime(const NodeLifetime& lifetime, std::mt19937_64& rng) {
  const double life = hours(lifetime.scale) * std::pow(-std::log(data::unit_draw(rng)), 1 / lifetime.shape);
  constexpr double kThousandYears = 1000 * 366 * 24.0;
  if (!(life < kThousandYears)) return std::nullopt;
  return static_cast<data::Micros>(std::llround(life * static_cast<double>(data::kMicrosPerHour)));
}

}  // namespace millrace::sim
