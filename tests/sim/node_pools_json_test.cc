// The node pools a fanned-out node search sends its workers (sim/node_pools_json.h): every field
// of every pool, each set away from its default, reads back as it was written (so a field the
// round trip dropped fails here), and a malformed one is refused naming the field.
#include "sim/node_pools_json.h"

#include <gtest/gtest.h>

#include <functional>

#include "data/error.h"
#include "tests/support/error_message.h"

namespace millrace::sim {
namespace {

using nlohmann::json;
using test_support::error_of;

// Three pools whose every field differs from NodePool's defaults and from each other's.
NodePoolsConfig unusual_pools() {
  NodePoolsConfig config;
  NodePool standard;
  standard.name = "standard";
  standard.count = 2;
  standard.min = 1;
  standard.max = 9;
  standard.provision_delay = 91'000'001;
  standard.provision_delay_given = false;
  standard.capacity = {{"cpu", 4000}, {"memory", 17'179'869'184'000}};
  standard.price = data::Money{190'001};
  standard.billing = {60'000'000, 120'000'000};
  standard.declared_at = "pools.csv:2";
  NodePool by_rate = standard;
  by_rate.name = "cheap";
  by_rate.count = by_rate.min = by_rate.max = 3;
  by_rate.spot = true;
  by_rate.interruption_rate = 0.1 + 0.2;  // not a short decimal: must come back as the same double
  by_rate.price = data::Money{60'000};
  by_rate.declared_at = "pools.csv:3";
  NodePool by_lifetime = by_rate;
  by_lifetime.name = "weibull";
  by_lifetime.interruption_rate.reset();
  by_lifetime.lifetime = NodeLifetime{0.8, 43'200'000'001, "weibull:shape=0.8,scale=12h"};
  by_lifetime.declared_at = "pools.csv:4";
  config.pools = {standard, by_rate, by_lifetime};
  config.placement = Placement::kMostAllocated;
  config.expander = Expander::kLeastWaste;
  config.scale_down_delay = 123'000'007;
  return config;
}

TEST(NodePoolsJson, EveryFieldOfEveryPoolReadsBackAsWritten) {
  const NodePoolsConfig given = unusual_pools();
  const NodePoolsConfig back = node_pools_from_json(json::parse(to_json(given).dump()), "pools");
  EXPECT_EQ(back.placement, Placement::kMostAllocated);
  EXPECT_EQ(back.expander, Expander::kLeastWaste);
  EXPECT_EQ(back.scale_down_delay, 123'000'007);
  ASSERT_EQ(back.pools.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    const NodePool& a = given.pools[i];
    const NodePool& b = back.pools[i];
    EXPECT_EQ(b.name, a.name);
    EXPECT_EQ(b.count, a.count);
    EXPECT_EQ(b.min, a.min);
    EXPECT_EQ(b.max, a.max);
    EXPECT_EQ(b.provision_delay, a.provision_delay);
    EXPECT_EQ(b.provision_delay_given, a.provision_delay_given);
    EXPECT_EQ(b.capacity, a.capacity);
    EXPECT_EQ(b.price, a.price);
    EXPECT_EQ(b.billing, a.billing);
    EXPECT_EQ(b.spot, a.spot);
    EXPECT_EQ(b.interruption_rate, a.interruption_rate);
    ASSERT_EQ(b.lifetime.has_value(), a.lifetime.has_value()) << a.name;
    if (a.lifetime) {
      EXPECT_EQ(b.lifetime->shape, a.lifetime->shape);
      EXPECT_EQ(b.lifetime->scale, a.lifetime->scale);
      EXPECT_EQ(b.lifetime->text, a.lifetime->text);
    }
    EXPECT_EQ(b.declared_at, a.declared_at);
  }
  EXPECT_FALSE(given.pools[0].spot);  // the defaults of the fields the first pool leaves
  EXPECT_EQ(to_json(back), to_json(given));
  // A cluster of slots: no pool, the defaults.
  EXPECT_TRUE(node_pools_from_json(to_json(NodePoolsConfig{}), "pools").pools.empty());
}

TEST(NodePoolsJson, AMalformedPoolIsRefusedNamingTheField) {
  const json good = to_json(unusual_pools());
  auto refused = [&](const std::function<void(json&)>& spoil) {
    json bad = good;
    spoil(bad);
    return error_of([&] { node_pools_from_json(bad, "node_pools"); });
  };
  EXPECT_EQ(refused([](json& j) { j["pools"][1].erase("spot"); }), "node_pools.pools[1].spot: missing");
  EXPECT_EQ(refused([](json& j) { j["pools"][0]["prise"] = 1; }),
            "node_pools.pools[0].prise: is not a field of a node pool");
  EXPECT_EQ(refused([](json& j) { j["pools"][0]["count"] = -1; }),
            "node_pools.pools[0].count: must be an integer from 0 to 2147483647");
  EXPECT_EQ(refused([](json& j) { j["pools"][0]["capacity"]["cpu"] = "4"; }),
            "node_pools.pools[0].capacity.cpu: must be an integer from 0 to 9223372036854775807");
  EXPECT_EQ(refused([](json& j) { j["pools"][0]["price_millionths"] = -5; }),
            "node_pools.pools[0].price_millionths: must be an integer from 0 to 1000000000000000000");
  EXPECT_EQ(refused([](json& j) { j["pools"][0]["billing"]["unit_us"] = 0; }),
            "node_pools.pools[0].billing.unit_us: must be an integer from 1 to 9223372036854775807");
  EXPECT_EQ(refused([](json& j) { j["pools"][1]["interruption_rate"] = -0.5; }),
            "node_pools.pools[1].interruption_rate: must be a finite number >= 0");
  EXPECT_EQ(refused([](json& j) { j["pools"][1]["spot"] = false; }),
            "node_pools.pools[1]: pool 'cheap' has an interruption rate or lifetime but is not spot");
  EXPECT_EQ(refused([](json& j) { j["pools"][2]["interruption_rate"] = 1; }),
            "node_pools.pools[2]: pool 'weibull' has both an interruption rate and a lifetime");
  EXPECT_EQ(refused([](json& j) { j["pools"][2]["lifetime"]["shape"] = 0; }),
            "node_pools.pools[2].lifetime.shape: must be a finite number above 0");
  EXPECT_EQ(refused([](json& j) { j["pools"][0]["min"] = 5; }),
            "node_pools.pools: pool 'standard' needs 0 <= min <= count <= max and max >= 1 (has count 2, min 5, max 9)");
  EXPECT_EQ(refused([](json& j) { j["placement"] = "random"; }),
            "node_pools.placement: unknown placement 'random' (known: first-fit, most-allocated, least-allocated)");
  EXPECT_EQ(refused([](json& j) { j["pools"] = "all"; }),
            "node_pools.pools: must be an array of at most 4096 node pools");
  EXPECT_EQ(refused([](json& j) { j = json::array(); }), "node_pools: must be a JSON object");
}

}  // namespace
}  // namespace millrace::sim
