#include "sim/pool_mix.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include "data/error.h"
#include "data/quantity.h"
#include "sim/fewest_meeting.h"
#include "sim/lookahead_batches.h"

namespace millrace::sim {

namespace {

// The searched pools' nodes, by position in the searched pools.
using Counts = std::vector<int>;

void validate(const CapacityQuestion& q, const std::vector<std::size_t>& pools) {
  if (pools.size() < 2) throw data::Error("--pool", "a mix searches two pools or more");
  if (std::set<std::size_t>(pools.begin(), pools.end()).size() != pools.size()) {
    throw data::Error("--pool", "a pool is named twice");
  }
  for (std::size_t pool : pools) {
    if (pool >= q.spec.base.cluster.pools.pools.size()) {
      throw data::Error("--pool", "no pool " + std::to_string(pool) + " to search the size of");
    }
  }
  if (q.min_nodes != 1) {
    throw data::Error("--min-nodes " + std::to_string(q.min_nodes),
                      "a mix searches each pool from 0 nodes to --max-nodes: leave --min-nodes out");
  }
  if (!q.spec.recorded_items) {
    throw data::Error("--run", "a node search replays a recorded run (its items' requests and submit times)");
  }
}

// The first on-demand pool named, else the first named.
std::size_t filler_of(const CapacityQuestion& q, const std::vector<std::size_t>& pools) {
  const std::vector<NodePool>& all = q.spec.base.cluster.pools.pools;
  for (std::size_t position = 0; position < pools.size(); ++position) {
    if (!all[pools[position]].spot) return position;
  }
  return 0;
}

// The question on `counts`: each searched pool sized to its count, those at 0 left out, except
// the pool at position `searched`, kept as it is for a search to size (the question's node_pool).
CapacityQuestion sized(const CapacityQuestion& q, const std::vector<std::size_t>& pools, const Counts& counts,
                       std::optional<std::size_t> searched) {
  CapacityQuestion out = q;
  out.node_pool.reset();
  const std::vector<NodePool>& all = q.spec.base.cluster.pools.pools;
  std::vector<NodePool> kept;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const auto named = std::find(pools.begin(), pools.end(), i);
    const std::size_t position = static_cast<std::size_t>(named - pools.begin());
    if (named == pools.end()) {
      kept.push_back(all[i]);
    } else if (searched == position) {
      out.node_pool = kept.size();
      kept.push_back(all[i]);
    } else if (counts[position] > 0) {
      kept.push_back(pool_sized(all[i], counts[position]));
    }
  }
  out.spec.base.cluster.pools.pools = std::move(kept);
  return out;
}

// Whether every recorded item fits some pool's machine of the question.
bool fits_every_item(const CapacityQuestion& q) {
  const std::vector<NodePool>& pools = q.spec.base.cluster.pools.pools;
  return std::all_of(q.spec.recorded_items->begin(), q.spec.recorded_items->end(), [&](const data::WorkItem& item) {
    return std::any_of(pools.begin(), pools.end(),
                       [&](const NodePool& pool) { return data::short_resource(item.requests, pool.capacity).empty(); });
  });
}

// The row of a mix: its parts (every searched pool, in the order named) and its nodes in all.
void label(ComparisonRow& row, const CapacityQuestion& q, const std::vector<std::size_t>& pools, const Counts& counts) {
  row.mix.clear();
  for (std::size_t position = 0; position < pools.size(); ++position) {
    const NodePool& pool = q.spec.base.cluster.pools.pools[pools[position]];
    row.mix.push_back({pool.name, pool.spot, counts[position]});
  }
  row.nodes = std::accumulate(counts.begin(), counts.end(), 0);
}

// The mixes a plan simulates, each once, by their counts. Fanned out (spec.elsewhere), what is
// told ahead (a grid point's mix, a search's certain counts) goes to the pool with the next batch
// (sim/lookahead_batches.h).
class MixRows {
 public:
  MixRows(const CapacityQuestion& q, const std::vector<std::size_t>& pools) : q_(q), pools_(pools) {
    if (!q.spec.elsewhere) return;
    batches_.emplace(q.spec.elsewhere);
    q_.spec.elsewhere = batches_->elsewhere();
  }

  // The mix of `counts`, which of() will ask: fanned out, sent with the next batch unless simulated.
  void of_ahead(const Counts& counts) {
    if (!batches_ || rows_.count(counts)) return;
    if (const std::optional<OnMix> mix = on_mix(counts)) batches_->certain({count_comparison(mix->question, mix->nodes)});
  }
  // The searches search() will make, each of a pool's position beside counts: fanned out, the
  // counts each will ask whatever the answers go with the next batch, and the counts each may ask
  // first (nearest first) in the batch's spare room.
  void searches_ahead(const std::vector<std::pair<Counts, std::size_t>>& searches) {
    if (!batches_) return;
    std::vector<std::vector<ComparisonSpec>> ahead;
    for (const auto& [counts, position] : searches) {
      const CapacityQuestion on_mix = sized(q_, pools_, counts, position);
      if (!fits_every_item(on_mix)) continue;
      const std::vector<int> certain = certain_counts(on_mix);
      for (int n : certain) batches_->certain({count_comparison(on_mix, n)});
      std::vector<ComparisonSpec>& specs = ahead.emplace_back();
      for (int n : FewestMeetingSearch(on_mix.min_nodes, on_mix.max_nodes).possible(kStepsAhead)) {
        if (std::find(certain.begin(), certain.end(), n) == certain.end()) specs.push_back(count_comparison(on_mix, n));
      }
    }
    batches_->possible(nearest_first(ahead));
  }

  const ComparisonRow& keep(const Counts& counts, ComparisonRow row) {
    label(row, q_, pools_, counts);
    return rows_.insert_or_assign(counts, std::move(row)).first->second;
  }
  // The row of `counts` (every count given), simulated unless it was; none when its pools fit
  // not every item or it has no node.
  std::optional<ComparisonRow> of(const Counts& counts) {
    const auto found = rows_.find(counts);
    if (found != rows_.end()) return found->second;
    const std::optional<OnMix> mix = on_mix(counts);
    if (!mix) return std::nullopt;
    return keep(counts, replay_on_pool(mix->question, mix->nodes, pod_cap(mix->question),
                                       mix->question.spec.base.scheduler.params.type_limits));
  }
  // The search of the pool at `position` over 1..max beside `counts` (its own entry ignored),
  // every count it asked kept; none when its pools fit not every item.
  std::optional<CapacityAnswer> search(Counts counts, std::size_t position) {
    const CapacityQuestion on_mix = sized(q_, pools_, counts, position);
    if (!fits_every_item(on_mix)) return std::nullopt;
    CapacityAnswer answer = plan_capacity(on_mix);
    for (ComparisonRow& row : answer.evaluated.rows) {
      counts[position] = row.nodes;
      row = keep(counts, row);
    }
    if (answer.best) {
      counts[position] = answer.best->nodes;
      answer.best = rows_.at(counts);
    }
    counts[position] = q_.max_nodes;
    answer.best_at_max = rows_.at(counts);
    return answer;
  }
  std::vector<ComparisonRow> all() const {
    std::vector<ComparisonRow> out;
    for (const auto& [counts, row] : rows_) out.push_back(row);
    return out;
  }

 private:
  // A mix as a pool question: its first pool with nodes searched, at `nodes`.
  struct OnMix {
    CapacityQuestion question;
    int nodes = 0;
  };
  // None when the mix has no node or its pools fit not every item.
  std::optional<OnMix> on_mix(const Counts& counts) const {
    const auto first = std::find_if(counts.begin(), counts.end(), [](int n) { return n > 0; });
    if (first == counts.end()) return std::nullopt;
    CapacityQuestion question = sized(q_, pools_, counts, static_cast<std::size_t>(first - counts.begin()));
    if (!fits_every_item(question)) return std::nullopt;
    return OnMix{std::move(question), *first};
  }

  CapacityQuestion q_;
  const std::vector<std::size_t>& pools_;
  std::map<Counts, ComparisonRow> rows_;
  std::optional<LookaheadBatches> batches_;
};

// A grid pool's counts: 0, the powers of two below max, max and its fewest alone.
std::vector<int> grid_of(int max, const std::optional<ComparisonRow>& fewest_alone) {
  std::set<int> counts{0, max};
  for (int n = 1; n < max; n *= 2) counts.insert(n);
  if (fewest_alone) counts.insert(fewest_alone->nodes);
  return {counts.begin(), counts.end()};
}

// Every combination of the grids' counts, the first grid varying slowest.
std::vector<Counts> combinations(const std::vector<std::vector<int>>& grids) {
  std::vector<Counts> out{Counts{}};
  for (const std::vector<int>& grid : grids) {
    std::vector<Counts> longer;
    for (const Counts& head : out) {
      for (int n : grid) {
        longer.push_back(head);
        longer.back().push_back(n);
      }
    }
    out = std::move(longer);
  }
  return out;
}

}  // namespace

int spot_nodes(const ComparisonRow& row) {
  int nodes = 0;
  for (const MixPart& part : row.mix) nodes += part.spot ? part.nodes : 0;
  return nodes;
}

MixAnswer plan_mix(const CapacityQuestion& q, const std::vector<std::size_t>& pools) {
  validate(q, pools);
  MixAnswer answer;
  answer.pools = pools;
  answer.filler = filler_of(q, pools);
  answer.alone.resize(pools.size());
  MixRows rows(q, pools);
  std::vector<std::vector<int>> grids(pools.size(), std::vector<int>{0});
  // Fanned out, the first batch of one grid pool's search carries the others' certain counts.
  std::vector<std::pair<Counts, std::size_t>> alone_searches;
  for (std::size_t position = 0; position < pools.size(); ++position) {
    if (position != answer.filler) alone_searches.emplace_back(Counts(pools.size(), 0), position);
  }
  rows.searches_ahead(alone_searches);
  for (std::size_t position = 0; position < pools.size(); ++position) {
    if (position == answer.filler) continue;
    const std::optional<CapacityAnswer> alone = rows.search(Counts(pools.size(), 0), position);
    if (!alone) continue;
    answer.alone[position] = alone->best.value_or(alone->best_at_max);
    grids[position] = grid_of(q.max_nodes, alone->best);
  }
  // Every grid point's mix without filler nodes is known now: one batch when fanned out. Then the
  // filler's searches beside the points missing the target, their certain counts in one batch.
  const std::vector<Counts> points = combinations(grids);
  const auto has_nodes = [](const Counts& counts) { return std::any_of(counts.begin(), counts.end(), [](int n) { return n > 0; }); };
  for (const Counts& counts : points) {
    if (has_nodes(counts)) rows.of_ahead(counts);
  }
  for (const Counts& counts : points) {
    MixGridPoint& point = answer.grid.emplace_back(MixGridPoint{counts, std::nullopt});
    if (!has_nodes(counts)) continue;
    const std::optional<ComparisonRow> without_filler = rows.of(counts);
    if (without_filler && meets(q, *without_filler)) point.fewest = without_filler;
  }
  std::vector<std::pair<Counts, std::size_t>> filler_searches;
  for (const MixGridPoint& point : answer.grid) {
    if (!point.fewest) filler_searches.emplace_back(point.counts, answer.filler);
  }
  rows.searches_ahead(filler_searches);
  for (MixGridPoint& point : answer.grid) {
    if (point.fewest) continue;
    if (const std::optional<CapacityAnswer> filled = rows.search(point.counts, answer.filler)) point.fewest = filled->best;
  }
  answer.evaluated = rows.all();
  for (const ComparisonRow& row : answer.evaluated) {
    if (!meets(q, row)) continue;
    const auto key = [](const ComparisonRow& r) { return std::tuple(r.nodes, r.makespan_mean, spot_nodes(r)); };
    if (!answer.fewest || key(row) < key(*answer.fewest)) answer.fewest = row;
  }
  return answer;
}

ComparisonRow replay_mix(const CapacityQuestion& q, const std::vector<MixPart>& mix) {
  std::vector<std::size_t> pools;
  Counts counts;
  const std::vector<NodePool>& all = q.spec.base.cluster.pools.pools;
  for (const MixPart& part : mix) {
    const auto named = std::find_if(all.begin(), all.end(), [&](const NodePool& p) { return p.name == part.pool; });
    if (named == all.end()) throw data::Error("--pool " + part.pool, "no such pool in --node-pools");
    pools.push_back(static_cast<std::size_t>(named - all.begin()));
    counts.push_back(part.nodes);
  }
  MixRows rows(q, pools);
  const std::optional<ComparisonRow> row = rows.of(counts);
  if (!row) throw data::Error("--pool", "the mix has no node, or leaves some item no machine to fit");
  return *row;
}

}  // namespace millrace::sim
