#include "sim/cheapest_plan.h"

#include <algorithm>
#include <tuple>

#include "data/error.h"

namespace millrace::sim {

namespace {

const char* const kNeedsPrices =
    "needs prices: --worker-price, a price column in --node-pools, or --machine ...,price=P";

data::Money mean_cost(const ComparisonRow& row) {
  if (!row.cost) throw data::Error("--minimize cost", kNeedsPrices);
  return row.cost->mean;
}

int count_of(const ComparisonRow& row) { return row.nodes > 0 ? row.nodes : row.workers; }

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
  const std::vector<NodePool>& pools = question.spec.base.cluster.pools.pools;
  if (!question.node_pool || std::none_of(pools.begin(), pools.end(), [](const NodePool& p) { return p.spot; })) {
    return std::nullopt;
  }
  CapacityQuestion on_demand = question;
  for (NodePool& pool : on_demand.spec.base.cluster.pools.pools) {
    pool.spot = false;
    pool.interruption_rate.reset();
    pool.lifetime.reset();
  }
  const int cap = question.spec.workers.empty() ? static_cast<int>(question.spec.recorded_items->size())
                                                : question.spec.workers.front();
  const ComparisonRow without =
      replay_on_pool(on_demand, judged.nodes, cap, question.spec.base.scheduler.params.type_limits);
  return SpotRisk{*judged.deadline_met, *without.deadline_met};
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
