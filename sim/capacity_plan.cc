#include "sim/capacity_plan.h"

#include <algorithm>
#include <map>

#include "data/error.h"

namespace millrace::sim {

namespace {

class Evaluator {
 public:
  explicit Evaluator(const CapacityQuestion& q) : q_(q) {}

  // The best row at `workers`: highest share meeting the deadline, then lowest mean makespan,
  // then fewest node-hours.
  const ComparisonRow& best(int workers) {
    auto found = best_.find(workers);
    if (found != best_.end()) return found->second;
    if (q_.evaluating) q_.evaluating(workers);
    ComparisonSpec spec = q_.spec;
    spec.workers = {workers};
    spec.recorded_items.reset();
    Comparison c = run_comparison(spec);
    for (ComparisonRow& row : c.rows) {
      const auto met = std::count_if(row.makespans.begin(), row.makespans.end(),
                                     [&](data::Micros m) { return m <= q_.deadline; });
      row.deadline_met = static_cast<double>(met) / static_cast<double>(row.makespans.size());
    }
    const ComparisonRow& top = *std::min_element(c.rows.begin(), c.rows.end(), [](const auto& a, const auto& b) {
      if (*a.deadline_met != *b.deadline_met) return *a.deadline_met > *b.deadline_met;
      if (a.makespan_mean != b.makespan_mean) return a.makespan_mean < b.makespan_mean;
      return a.node_hours < b.node_hours;
    });
    best_.emplace(workers, top);
    rows_.emplace(workers, std::move(c.rows));
    return best_.at(workers);
  }
  bool meets(int workers) { return *best(workers).deadline_met >= q_.confidence - 1e-12; }

  CapacityAnswer answer() const {
    CapacityAnswer a;
    for (const auto& [workers, rows] : rows_) {
      a.evaluated.rows.insert(a.evaluated.rows.end(), rows.begin(), rows.end());
      a.curve.push_back(best_.at(workers));
    }
    for (std::size_t i = 1; i < a.curve.size(); ++i) {
      if (a.curve[i].makespan_mean > a.curve[i - 1].makespan_mean) a.monotone = false;
    }
    return a;
  }

 private:
  const CapacityQuestion& q_;
  std::map<int, ComparisonRow> best_;
  std::map<int, std::vector<ComparisonRow>> rows_;
};

void validate(const CapacityQuestion& q) {
  if (q.deadline <= 0) throw data::Error("--deadline", "must be a positive duration (e.g. 24h)");
  if (!(q.confidence > 0 && q.confidence <= 1)) {
    throw data::Error("--confidence " + std::to_string(q.confidence), "must be in (0, 1]");
  }
  if (q.min_workers < 1 || q.max_workers < q.min_workers) {
    throw data::Error("--max-workers " + std::to_string(q.max_workers),
                      "must be >= the minimum worker count " + std::to_string(q.min_workers));
  }
}

}  // namespace

CapacityAnswer plan_capacity(const CapacityQuestion& q) {
  validate(q);
  Evaluator eval(q);
  std::optional<int> found;
  if (eval.meets(q.max_workers)) {
    int lo = q.min_workers;
    int hi = q.max_workers;  // meets
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;
      if (eval.meets(mid)) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    while (hi > q.min_workers && eval.meets(hi - 1)) --hi;
    found = hi;
  }
  for (int w = q.min_workers; w < q.max_workers; w *= 2) eval.best(w);
  const ComparisonRow at_max = eval.best(q.max_workers);
  CapacityAnswer answer = eval.answer();
  answer.best_at_max = at_max;
  if (found) answer.best = eval.best(*found);
  return answer;
}

}  // namespace millrace::sim
