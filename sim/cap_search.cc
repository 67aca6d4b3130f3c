#include "sim/cap_search.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <tuple>

#include "sim/fewest_meeting.h"
#include "sim/lookahead_batches.h"

namespace millrace::sim {

namespace {

std::vector<data::Micros> wait_p90s(const ComparisonRow& row) {
  std::vector<data::Micros> values;
  for (const data::WaitSummary& w : row.replica_waits) values.push_back(w.p90);
  return values;
}

// Whether `row` is within noise of `uncapped` in mean makespan and mean wait p90.
bool within_noise(const ComparisonRow& row, const ComparisonRow& uncapped) {
  const double n = static_cast<double>(uncapped.replicas);
  const double floor = 0.01 * static_cast<double>(uncapped.makespan_mean);
  auto tolerance = [&](double sd_row, double sd_uncapped) {
    return std::max(2 * std::sqrt((sd_row * sd_row + sd_uncapped * sd_uncapped) / n), floor);
  };
  const double makespan_gap = static_cast<double>(row.makespan_mean - uncapped.makespan_mean);
  const double wait_gap = static_cast<double>(row.wait_p90 - uncapped.wait_p90);
  return makespan_gap <= tolerance(static_cast<double>(row.makespan_stddev), static_cast<double>(uncapped.makespan_stddev)) &&
         wait_gap <= tolerance(replica_spread(wait_p90s(row)), replica_spread(wait_p90s(uncapped)));
}

// A replay on the answer's nodes: under a total cap and type limits.
struct CapReplay {
  int total = 0;
  std::map<std::string, int> limits;
  bool operator<(const CapReplay& other) const { return std::tie(total, limits) < std::tie(other.total, other.limits); }
  bool operator==(const CapReplay& other) const = default;
};

// Every replay the caps' searches ask, each once (a search for a type's fewest cap and its
// saturation search may ask the same). Here, replayed one after another as asked. Fanned out
// (spec.elsewhere), the replays asked at one step go to the pool in one batch with those certain
// later and, in the batch's spare room, those the searches may ask next (sim/lookahead_batches.h).
class CapRows {
 public:
  CapRows(const CapacityQuestion& q, int nodes) : q_(q), nodes_(nodes) {
    if (!q.spec.elsewhere) return;
    batches_.emplace(q.spec.elsewhere);
    q_.spec.elsewhere = batches_->elsewhere();
  }

  // Replays the searches will ask: fanned out, sent with the next batch.
  void certain(const std::vector<CapReplay>& replays) {
    if (batches_) batches_->certain(specs_of(unknown(replays)));
  }
  // Replays each of `asked` not replayed yet; fanned out, with `possible` (nearest first) ahead.
  void replay(const std::vector<CapReplay>& asked, const std::vector<CapReplay>& possible) {
    const std::vector<CapReplay> missing = unknown(asked);
    if (batches_) {
      batches_->certain(specs_of(missing));
      batches_->possible(specs_of(unknown(possible)));
    }
    for (const CapReplay& r : missing) rows_.emplace(r, replay_on_pool(q_, nodes_, r.total, r.limits));
  }
  const ComparisonRow& at(const CapReplay& replay) const { return rows_.at(replay); }

 private:
  // Those of `replays` not replayed yet, each once, in order.
  std::vector<CapReplay> unknown(const std::vector<CapReplay>& replays) const {
    std::vector<CapReplay> out;
    for (const CapReplay& r : replays) {
      if (!rows_.count(r) && std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
    }
    return out;
  }
  std::vector<ComparisonSpec> specs_of(const std::vector<CapReplay>& replays) const {
    std::vector<ComparisonSpec> specs;
    for (const CapReplay& r : replays) specs.push_back(spec_on_pool(q_, nodes_, r.total, r.limits));
    return specs;
  }

  CapacityQuestion q_;
  int nodes_;
  std::map<CapReplay, ComparisonRow> rows_;
  std::optional<LookaheadBatches> batches_;
};

// One cap's search for the fewest cap in [1, upper] whose row passes: the type's (empty: the
// total cap) with the other types at `limits` and the total at `total`. With check_upper, upper
// is asked first and nothing is found when it does not pass; without, upper is taken to pass
// (sim/fewest_meeting.h). Every cap asked is kept with its row.
class CapSearch {
 public:
  CapSearch(std::string type, int total, std::map<std::string, int> limits, int upper, bool check_upper,
            std::function<bool(const ComparisonRow&)> passes)
      : type_(std::move(type)), total_(total), limits_(std::move(limits)), upper_(upper),
        upper_told_(!check_upper), passes_(std::move(passes)), search_(1, upper) {}

  // The cap whose row the search needs next; none once it has its answer.
  std::optional<int> next() const {
    if (!upper_told_) return upper_;
    if (upper_failed_) return std::nullopt;
    return search_.next();
  }
  void tell(const ComparisonRow& row) {
    const int cap = *next();
    curve_.emplace(cap, row);
    if (!upper_told_) {
      upper_told_ = true;
      upper_failed_ = !passes_(row);
      return;
    }
    search_.tell(passes_(row));
  }
  // The caps the search may ask in its next `steps` questions, whatever the rows (next() first).
  std::vector<int> possible(int steps) const {
    if (upper_told_) return upper_failed_ ? std::vector<int>{} : search_.possible(steps);
    std::vector<int> caps{upper_};
    for (int cap : search_.possible(steps - 1)) caps.push_back(cap);
    return caps;
  }
  std::optional<int> found() const {
    if (upper_failed_) return std::nullopt;
    return search_.answer();
  }
  CapReplay replay_of(int cap) const {
    if (type_.empty()) return {cap, limits_};
    CapReplay replay{total_, limits_};
    replay.limits[type_] = cap;
    return replay;
  }
  int upper() const { return upper_; }
  const std::map<int, ComparisonRow>& curve() const { return curve_; }
  void keep(int cap, const ComparisonRow& row) { curve_.emplace(cap, row); }

 private:
  std::string type_;
  int total_;
  std::map<std::string, int> limits_;
  int upper_;
  bool upper_told_;
  bool upper_failed_ = false;
  std::function<bool(const ComparisonRow&)> passes_;
  FewestMeetingSearch search_;
  std::map<int, ComparisonRow> curve_;
};

// Runs `searches` side by side until none asks: at each step every running search's next cap
// replayed (fanned out, in one batch, with what the searches may ask in their next steps, the
// nearest of each first). `first` is replayed with the first step; `ended(i)` is told when search
// i has its answer, and may append searches (asked from that step on).
void run_side_by_side(CapRows& rows, std::vector<CapSearch>& searches, const CapReplay& first,
                      const std::function<void(std::size_t)>& ended) {
  std::vector<bool> done;
  std::vector<CapReplay> asked{first};
  while (true) {
    for (std::size_t i = 0; i < searches.size(); ++i) {  // those ended() appends too
      if (i == done.size()) done.push_back(false);
      if (done[i] || searches[i].next()) continue;
      done[i] = true;
      ended(i);
    }
    std::vector<std::vector<CapReplay>> ahead;
    for (std::size_t i = 0; i < searches.size(); ++i) {
      if (done[i]) continue;
      asked.push_back(searches[i].replay_of(*searches[i].next()));
      std::vector<CapReplay>& replays = ahead.emplace_back();
      for (int cap : searches[i].possible(kStepsAhead)) replays.push_back(searches[i].replay_of(cap));
    }
    if (asked.empty()) return;
    rows.replay(asked, nearest_first(ahead));
    asked.clear();
    for (std::size_t i = 0; i < searches.size(); ++i) {
      if (!done[i]) searches[i].tell(rows.at(searches[i].replay_of(*searches[i].next())));
    }
  }
}


}  // namespace

CapAnswer find_caps(const CapacityQuestion& q, int nodes) {
  const std::vector<data::WorkItem>& items = *q.spec.recorded_items;
  const int all_items = static_cast<int>(items.size());
  std::map<std::string, int> per_type;
  for (const data::WorkItem& item : items) {
    if (!item.type.empty()) ++per_type[item.type];
  }
  const std::map<std::string, int>& given = q.spec.base.scheduler.params.type_limits;
  const int given_total = q.spec.workers.empty() ? all_items : std::min(all_items, q.spec.workers.front());

  CapAnswer answer;
  answer.nodes = nodes;
  CapRows rows(q, nodes);
  const CapReplay uncapped{all_items, {}};
  const auto meets_target = [&q](const ComparisonRow& row) { return meets(q, row); };
  const auto saturated = [&rows, &uncapped](const ComparisonRow& row) { return within_noise(row, rows.at(uncapped)); };
  // Independent of one another: each type's saturation and the total's (beside the uncapped
  // replay), the total's fewest meeting (the types at the question's limits). Each type's fewest
  // meeting needs the caps found before it: they run one after another, beside the others.
  std::vector<CapSearch> searches;
  std::vector<CapFinding> saturations;
  auto saturation = [&](const std::string& type, int count) {
    searches.emplace_back(type, all_items, std::map<std::string, int>{}, count, false, saturated);
    CapFinding& finding = saturations.emplace_back();
    finding.type = type;
    finding.items = count;
  };
  for (const auto& [type, count] : per_type) saturation(type, count);
  saturation("", all_items);
  searches.emplace_back("", given_total, given, given_total, true, meets_target);
  const std::size_t total_meeting = searches.size() - 1;
  std::vector<CapReplay> powers;  // of every saturation curve: certain
  for (std::size_t i = 0; i < saturations.size(); ++i) {
    for (int cap = 1; cap < saturations[i].items; cap *= 2) powers.push_back(searches[i].replay_of(cap));
  }
  rows.certain(powers);

  std::map<std::string, int> limits = given;  // the caps found so far, then the question's
  auto type_meeting = per_type.begin();
  std::map<std::size_t, std::string> meeting_type;  // by search: the type whose fewest cap it finds
  // Starts the next type's fewest meeting, if any, with the types before at the caps found.
  auto start_next_type = [&] {
    if (type_meeting == per_type.end()) return;
    const auto& [type, count] = *type_meeting++;
    auto limit = given.find(type);
    const int upper = limit == given.end() ? count : std::min(count, limit->second);
    meeting_type[searches.size()] = type;
    searches.emplace_back(type, given_total, limits, upper, true, meets_target);
  };
  start_next_type();
  std::map<std::string, std::optional<int>> fewest_by_type;
  run_side_by_side(rows, searches, uncapped, [&](std::size_t i) {
    const auto typed = meeting_type.find(i);
    if (typed == meeting_type.end()) return;
    const std::optional<int> found = searches[i].found();
    fewest_by_type[typed->second] = found;
    limits[typed->second] = found.value_or(searches[i].upper());
    start_next_type();
  });
  answer.uncapped = rows.at(uncapped);
  rows.replay(powers, {});
  for (std::size_t i = 0; i < saturations.size(); ++i) {
    CapFinding& finding = saturations[i];
    for (int cap = 1; cap < finding.items; cap *= 2) searches[i].keep(cap, rows.at(searches[i].replay_of(cap)));
    finding.saturating = *searches[i].found();
    for (const auto& [cap, row] : searches[i].curve()) finding.curve.push_back({cap, row});
    for (std::size_t p = 1; p < finding.curve.size(); ++p) {
      if (finding.curve[p].row.makespan_mean > finding.curve[p - 1].row.makespan_mean) finding.monotone = false;
    }
    finding.fewest_meeting = finding.type.empty() ? searches[total_meeting].found() : fewest_by_type.at(finding.type);
  }
  answer.total = std::move(saturations.back());
  saturations.pop_back();
  answer.types = std::move(saturations);
  return answer;
}

}  // namespace millrace::sim
