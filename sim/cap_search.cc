#include "sim/cap_search.h"

#include <algorithm>
#include <cmath>

#include "sim/fewest_meeting.h"

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

// One cap searched: rows by cap, each replayed once.
class CapCurve {
 public:
  CapCurve(const CapacityQuestion& q, int nodes, std::string type, int total_cap, std::map<std::string, int> limits)
      : q_(q), nodes_(nodes), type_(std::move(type)), total_cap_(total_cap), limits_(std::move(limits)) {}

  const ComparisonRow& at(int cap) {
    auto found = rows_.find(cap);
    if (found != rows_.end()) return found->second;
    std::map<std::string, int> limits = limits_;
    int total = total_cap_;
    if (type_.empty()) {
      total = cap;
    } else {
      limits[type_] = cap;
    }
    return rows_.emplace(cap, replay_on_pool(q_, nodes_, total, limits)).first->second;
  }
  std::vector<CapPoint> points() const {
    std::vector<CapPoint> out;
    for (const auto& [cap, row] : rows_) out.push_back({cap, row});
    return out;
  }

 private:
  const CapacityQuestion& q_;
  int nodes_;
  std::string type_;
  int total_cap_;
  std::map<std::string, int> limits_;
  std::map<int, ComparisonRow> rows_;
};

std::optional<int> fewest_cap_meeting(CapCurve& curve, const CapacityQuestion& q, int upper) {
  auto meets_at = [&](int cap) { return meets(q, curve.at(cap)); };
  if (!meets_at(upper)) return std::nullopt;
  return fewest_meeting(1, upper, meets_at);
}

void saturate(CapFinding& finding, const CapacityQuestion& q, int nodes, int all_items, const ComparisonRow& uncapped) {
  CapCurve curve(q, nodes, finding.type, all_items, {});
  finding.saturating = fewest_meeting(1, finding.items, [&](int cap) { return within_noise(curve.at(cap), uncapped); });
  for (int cap = 1; cap < finding.items; cap *= 2) curve.at(cap);
  finding.curve = curve.points();
  for (std::size_t i = 1; i < finding.curve.size(); ++i) {
    if (finding.curve[i].row.makespan_mean > finding.curve[i - 1].row.makespan_mean) finding.monotone = false;
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
  answer.uncapped = replay_on_pool(q, nodes, all_items, {});
  std::map<std::string, int> limits = given;  // the caps found so far, then the question's
  for (const auto& [type, count] : per_type) {
    CapFinding finding;
    finding.type = type;
    finding.items = count;
    auto limit = given.find(type);
    const int upper = limit == given.end() ? count : std::min(count, limit->second);
    CapCurve meeting(q, nodes, type, given_total, limits);
    finding.fewest_meeting = fewest_cap_meeting(meeting, q, upper);
    limits[type] = finding.fewest_meeting.value_or(upper);
    saturate(finding, q, nodes, all_items, answer.uncapped);
    answer.types.push_back(std::move(finding));
  }
  answer.total.items = all_items;
  CapCurve total_meeting(q, nodes, "", given_total, given);
  answer.total.fewest_meeting = fewest_cap_meeting(total_meeting, q, given_total);
  saturate(answer.total, q, nodes, all_items, answer.uncapped);
  return answer;
}

}  // namespace millrace::sim
