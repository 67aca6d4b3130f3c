#include "sim/capacity_plan.h"

#include <algorithm>

#include "data/error.h"
#include "data/run_summary.h"

namespace millrace::sim {

namespace {

// The best row per evaluated count (workers or nodes), each count simulated once.
class Evaluator {
 public:
  Evaluator(const CapacityQuestion& q, std::function<std::vector<ComparisonRow>(int)> simulate)
      : q_(q), simulate_(std::move(simulate)) {}

  const ComparisonRow& best(int count) {
    auto found = best_.find(count);
    if (found != best_.end()) return found->second;
    if (q_.evaluating) q_.evaluating(count);
    std::vector<ComparisonRow> rows = simulate_(count);
    for (ComparisonRow& row : rows) judge(q_, row);
    best_.emplace(count, best_row(rows));
    rows_.emplace(count, std::move(rows));
    return best_.at(count);
  }
  bool meets(int count) { return sim::meets(q_, best(count)); }

  CapacityAnswer answer() const {
    CapacityAnswer a;
    for (const auto& [count, rows] : rows_) {
      a.evaluated.rows.insert(a.evaluated.rows.end(), rows.begin(), rows.end());
      a.curve.push_back(best_.at(count));
    }
    const bool nodes = q_.node_pool.has_value();
    for (std::size_t i = 1; i < a.curve.size(); ++i) {
      if (a.curve[i].makespan_mean > a.curve[i - 1].makespan_mean) a.monotone = false;
      if (nodes && a.curve[i].wait_p90 > a.curve[i - 1].wait_p90) a.monotone = false;
    }
    return a;
  }

 private:
  const CapacityQuestion& q_;
  std::function<std::vector<ComparisonRow>(int)> simulate_;
  std::map<int, ComparisonRow> best_;
  std::map<int, std::vector<ComparisonRow>> rows_;
};

void validate(const CapacityQuestion& q) {
  if (q.deadline < 0 || (q.deadline == 0 && !q.waits.any())) {
    throw data::Error("--deadline", "give a positive wanted makespan (e.g. 24h) or a wait target (e.g. --wait-p90 30m)");
  }
  if (!(q.confidence > 0 && q.confidence <= 1)) {
    throw data::Error("--confidence " + std::to_string(q.confidence), "must be in (0, 1]");
  }
  if (!q.node_pool) {
    if (q.min_workers < 1 || q.max_workers < q.min_workers) {
      throw data::Error("--max-workers " + std::to_string(q.max_workers),
                        "must be >= the minimum worker count " + std::to_string(q.min_workers));
    }
    return;
  }
  if (q.min_nodes < 1 || q.max_nodes < q.min_nodes) {
    throw data::Error("--max-nodes " + std::to_string(q.max_nodes),
                      "must be >= the minimum node count " + std::to_string(q.min_nodes));
  }
  if (!q.spec.recorded_items) {
    throw data::Error("--run", "a node search replays a recorded run (its items' requests and submit times)");
  }
  if (*q.node_pool >= q.spec.base.cluster.pools.pools.size()) {
    throw data::Error("--node-pools", "no pool " + std::to_string(*q.node_pool) + " to search the size of");
  }
}

NodePool pool_sized(NodePool pool, int nodes) {
  if (pool.count == pool.max) {
    pool.count = pool.min = pool.max = nodes;
    return pool;
  }
  pool.max = nodes;
  pool.count = std::min(pool.count, nodes);
  pool.min = std::min(pool.min, nodes);
  return pool;
}

}  // namespace

std::string target_text(const CapacityQuestion& q) {
  std::string text;
  auto add = [&](const std::string& what, data::Micros limit) {
    text += (text.empty() ? "" : ", ") + what + " <= " + data::duration_text(limit);
  };
  if (q.deadline > 0) add("makespan", q.deadline);
  if (q.waits.p50) add("wait p50", *q.waits.p50);
  if (q.waits.p90) add("wait p90", *q.waits.p90);
  if (q.waits.p99) add("wait p99", *q.waits.p99);
  return text;
}

void judge(const CapacityQuestion& q, ComparisonRow& row) {
  std::size_t met = 0;
  for (std::size_t i = 0; i < row.makespans.size(); ++i) {
    const data::WaitSummary& w = row.replica_waits[i];
    met += (q.deadline <= 0 || row.makespans[i] <= q.deadline) && (!q.waits.p50 || w.p50 <= *q.waits.p50) &&
           (!q.waits.p90 || w.p90 <= *q.waits.p90) && (!q.waits.p99 || w.p99 <= *q.waits.p99);
  }
  row.deadline_met = static_cast<double>(met) / static_cast<double>(row.makespans.size());
}

bool meets(const CapacityQuestion& q, const ComparisonRow& judged) {
  return *judged.deadline_met >= q.confidence - 1e-12;
}

const ComparisonRow& best_row(const std::vector<ComparisonRow>& judged) {
  return *std::min_element(judged.begin(), judged.end(), [](const auto& a, const auto& b) {
    if (*a.deadline_met != *b.deadline_met) return *a.deadline_met > *b.deadline_met;
    if (a.makespan_mean != b.makespan_mean) return a.makespan_mean < b.makespan_mean;
    return a.node_hours < b.node_hours;
  });
}

int fewest_meeting(int lo, int hi, const std::function<bool(int)>& meets) {
  const int floor = lo;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (meets(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  while (hi > floor && meets(hi - 1)) --hi;
  return hi;
}

ComparisonRow replay_on_pool(const CapacityQuestion& q, int nodes, int cap,
                             const std::map<std::string, int>& type_limits) {
  ComparisonSpec spec = q.spec;
  NodePool& pool = spec.base.cluster.pools.pools.at(*q.node_pool);
  pool = pool_sized(pool, nodes);
  spec.workers = {cap};
  spec.base.scheduler.params.type_limits = type_limits;
  Comparison c = run_comparison(spec);
  for (ComparisonRow& row : c.rows) {
    row.nodes = nodes;
    judge(q, row);
  }
  return best_row(c.rows);
}

CapacityAnswer plan_capacity(const CapacityQuestion& q) {
  validate(q);
  int lo = q.min_workers;
  int hi = q.max_workers;
  std::function<std::vector<ComparisonRow>(int)> simulate = [&q](int workers) {
    ComparisonSpec spec = q.spec;
    spec.workers = {workers};
    spec.recorded_items.reset();
    return run_comparison(spec).rows;
  };
  if (q.node_pool) {
    lo = q.min_nodes;
    hi = q.max_nodes;
    const int cap = q.spec.workers.empty() ? static_cast<int>(q.spec.recorded_items->size()) : q.spec.workers.front();
    simulate = [&q, cap](int nodes) {
      return std::vector<ComparisonRow>{replay_on_pool(q, nodes, cap, q.spec.base.scheduler.params.type_limits)};
    };
  }
  Evaluator eval(q, simulate);
  std::optional<int> found;
  if (eval.meets(hi)) found = fewest_meeting(lo, hi, [&](int n) { return eval.meets(n); });
  for (int n = lo; n < hi; n *= 2) eval.best(n);
  const ComparisonRow at_max = eval.best(hi);
  CapacityAnswer answer = eval.answer();
  answer.best_at_max = at_max;
  if (found) answer.best = eval.best(*found);
  return answer;
}

}  // namespace millrace::sim
