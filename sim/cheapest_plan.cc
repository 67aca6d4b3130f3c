#include "sim/cheapest_plan.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "data/error.h"
#include "data/readable_duration.h"
#include "sim/spot_capacity.h"

namespace millrace::sim {

namespace {

const char* const kNeedsPrices =
    "needs prices: --worker-price, a price column in --node-pools, or --machine ...,price=P";

data::Money mean_cost(const ComparisonRow& row) {
  if (!row.cost) throw data::Error("--minimize cost", kNeedsPrices);
  return row.cost->mean;
}

int count_of(const ComparisonRow& row) { return row.nodes > 0 ? row.nodes : row.workers; }

// Whether spot_risk has a figure for `judged`: some pool is spot, and so is some node of a mix.
bool at_spot_risk(const CapacityQuestion& question, const ComparisonRow& judged) {
  const std::vector<NodePool>& pools = question.spec.base.cluster.pools.pools;
  const bool mix = !judged.mix.empty();
  return !(mix && spot_nodes(judged) == 0) && (mix || question.node_pool) &&
         std::any_of(pools.begin(), pools.end(), [](const NodePool& p) { return p.spot; });
}

CapacityQuestion all_on_demand(CapacityQuestion question) {
  for (NodePool& pool : question.spec.base.cluster.pools.pools) {
    pool.spot = false;
    pool.interruption_rate.reset();
    pool.lifetime.reset();
  }
  return question;
}

}  // namespace

void require_priced(const CapacityQuestion& question) {
  if (!is_priced(question.spec.base.cluster, question.spec.base.pricing)) throw data::Error("--minimize cost", kNeedsPrices);
}

std::optional<ComparisonRow> cheapest_meeting(const CapacityQuestion& question, const std::vector<ComparisonRow>& judged) {
  std::optional<ComparisonRow> cheapest;
  const auto key = [](const ComparisonRow& r) { return std::tuple(mean_cost(r), r.makespan_mean, count_of(r)); };
  for (const ComparisonRow& row : judged) {
    mean_cost(row);
    if (!meets(question, row)) continue;
    if (!cheapest || key(row) < key(*cheapest)) cheapest = row;
  }
  return cheapest;
}

std::optional<SpotRisk> spot_risk(const CapacityQuestion& question, const ComparisonRow& judged) {
  if (!at_spot_risk(question, judged)) return std::nullopt;
  const CapacityQuestion on_demand = all_on_demand(question);
  const ComparisonRow without =
      !judged.mix.empty()
          ? replay_mix(on_demand, judged.mix)
          : replay_on_pool(on_demand, judged.nodes, pod_cap(question), question.spec.base.scheduler.params.type_limits);
  return SpotRisk{*judged.deadline_met, *without.deadline_met};
}

std::optional<ComparisonSpec> spot_risk_comparison(const CapacityQuestion& question, const ComparisonRow& judged) {
  if (!judged.mix.empty() || !at_spot_risk(question, judged)) return std::nullopt;
  return spec_on_pool(all_on_demand(question), judged.nodes, pod_cap(question),
                      question.spec.base.scheduler.params.type_limits);
}

std::vector<WhyNotSpot> why_not_spot(const CapacityQuestion& question, const MixAnswer& mix,
                                     const ComparisonRow& cheapest) {
  std::vector<WhyNotSpot> out;
  if (spot_nodes(cheapest) > 0) return out;
  std::optional<ComparisonRow> cheapest_with_spot;
  for (const ComparisonRow& row : mix.evaluated) {
    if (spot_nodes(row) == 0 || !meets(question, row)) continue;
    if (!cheapest_with_spot || std::tuple(mean_cost(row), row.makespan_mean) <
                                   std::tuple(mean_cost(*cheapest_with_spot), cheapest_with_spot->makespan_mean)) {
      cheapest_with_spot = row;
    }
  }
  // The rates the simulations drew from: typed, from a lifetime distribution, or fitted.
  const std::vector<InterruptionRate> rates =
      interruption_rates(question.spec.base.cluster.pools.pools, question.spec.base.cluster.fitted.get());
  for (std::size_t position = 0; position < mix.pools.size(); ++position) {
    const NodePool& pool = question.spec.base.cluster.pools.pools[mix.pools[position]];
    if (!pool.spot || !mix.alone[position]) continue;
    const InterruptionRate& rate = rates[mix.pools[position]];
    out.push_back({pool.name, rate.per_node_hour, rate.lifetime ? rate.lifetime->text : "", *mix.alone[position],
                   cheapest_with_spot});
  }
  return out;
}

std::string why_not_spot_text(const CapacityQuestion& question, const WhyNotSpot& why, const ComparisonRow& cheapest) {
  const ComparisonRow& alone = why.alone;
  const std::string cheapest_cost = data::money_text(mean_cost(cheapest), cheapest.cost->currency);
  const std::string share = std::to_string(std::lround(100 * *alone.deadline_met)) + "% of " +
                            data::counted(alone.replicas, "replica");
  std::string text;
  if (meets(question, alone)) {
    text = "spot alone meets " + target_text(question) + " with " + mix_text(alone) + " (in " + share +
           ") but costs " + data::money_text(mean_cost(alone), alone.cost->currency) + " (mean) where the answer costs " +
           cheapest_cost;
  } else {
    text = "spot alone (" + mix_text(alone) + ") meets " + target_text(question) + " in only " + share +
           " (asked: " + std::to_string(std::lround(100 * question.confidence)) +
           "%): " + data::readable_number(alone.nodes_interrupted) + " nodes taken back per run at " +
           data::readable_number(why.interruption_rate) + "/node-hour" +
           (why.lifetime.empty() ? "" : " on average (lifetime " + why.lifetime + ")") + ", " +
           data::readable_number(alone.attempts_interrupted) + " attempts lost with them";
  }
  if (!why.cheapest_with_spot) return text + "; no mix with spot nodes evaluated meets it";
  const ComparisonRow& with_spot = *why.cheapest_with_spot;
  if (mix_text(with_spot) == mix_text(alone)) return text;
  return text + "; the cheapest mix with spot nodes meeting it, " + mix_text(with_spot) + ", costs " +
         data::money_text(mean_cost(with_spot), with_spot.cost->currency) + " (mean) where the answer costs " +
         cheapest_cost;
}

std::string mix_text(const ComparisonRow& row) {
  std::string text;
  for (const MixPart& part : row.mix) {
    if (part.nodes == 0) continue;
    text += (text.empty() ? "" : " and ") + data::counted(part.nodes, part.spot ? "spot node" : "on-demand node") +
            " of pool '" + part.pool + "'";
  }
  return text;
}

std::vector<ComparisonRow> time_money_frontier(const std::vector<ComparisonRow>& rows) {
  std::vector<ComparisonRow> sorted = rows;
  std::stable_sort(sorted.begin(), sorted.end(), [](const ComparisonRow& a, const ComparisonRow& b) {
    return std::tuple(a.makespan_mean, mean_cost(a)) < std::tuple(b.makespan_mean, mean_cost(b));
  });
  // By makespan, then cost: a row is on the frontier when it is cheaper than every faster one.
  std::vector<ComparisonRow> frontier;
  for (const ComparisonRow& row : sorted) {
    if (frontier.empty() || mean_cost(row) < mean_cost(frontier.back())) frontier.push_back(row);
  }
  return frontier;
}

}  // namespace millrace::sim
