#include "sim/capacity_plan.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "data/error.h"
#include "data/run_summary.h"
#include "data/typed_duration.h"
#include "sim/fewest_meeting.h"
#include "sim/lookahead_batches.h"
#include "sim/sweep_pool.h"

namespace millrace::sim {

namespace {

// Ranks in the pool: the count the search waits for, then the counts it will certainly ask (the
// curve's), then those it may ask, nearest first.
constexpr long kAwaited = 0;
constexpr long kCertain = 1;
constexpr long kPossible = 2;

// The best row per count the search asks (workers or nodes), each count simulated once. Counts
// are evaluated in one pool of threads (sim/sweep_pool.h): while the search waits for one, the
// others run the counts it will or may ask later; only the counts it asks make the answer, so
// what it asks, in what order, and every figure are those of a search evaluating one count at a
// time (each replica is seeded by what it is, never by when or where it runs). Fanned out
// (spec.elsewhere), the replicas of the counts ahead go to the worker pool in the awaited count's
// batch instead (sim/lookahead_batches.h), and the pool here only builds partitions and rows.
class Evaluator {
 public:
  // spec(count): the comparison of a count; judged(count, comparison): its rows judged.
  Evaluator(const CapacityQuestion& q, const std::vector<int>& certain, std::function<ComparisonSpec(int)> spec,
            std::function<std::vector<ComparisonRow>(int, Comparison)> judged)
      : q_(q), spec_(std::move(spec)), judged_(std::move(judged)), pool_(q.spec.thread_count()) {
    if (q.spec.elsewhere) batches_.emplace(q.spec.elsewhere);
    for (int count : certain) {
      if (!certain_.insert(count).second) continue;
      if (batches_) {
        batches_->certain({spec_(count)});
      } else {
        pool_.queue(count, kCertain, make(count));
      }
    }
  }

  const ComparisonRow& best(int count) {
    auto found = best_.find(count);
    if (found != best_.end()) return found->second;
    {
      const std::lock_guard<std::mutex> guard(shown_);
      awaited_ = count;
      if (q_.evaluating) q_.evaluating(count);
      // Simulated ahead while another count was awaited: what it reached is shown now, so every
      // count the search asks is drawn, however far its comparison got before it was asked.
      const auto reached = reached_.find(count);
      if (reached != reached_.end() && q_.spec.progress) q_.spec.progress(reached->second.first, reached->second.second);
    }
    pool_.queue(count, kAwaited, batches_ ? make(count, std::move(batches_->take({spec_(count)}).front())) : make(count));
    std::vector<ComparisonRow> rows = judged_(count, pool_.wait(count));
    pool_.drop(count);
    best_.emplace(count, best_row(rows));
    rows_.emplace(count, std::move(rows));
    return best_.at(count);
  }
  bool meets(int count) { return sim::meets(q_, best(count)); }
  // Every judged row of `count` (one per candidate: partitioner or ranges file, and queue order).
  const std::vector<ComparisonRow>& rows(int count) {
    best(count);
    return rows_.at(count);
  }

  // The counts the search may ask next, nearest first, evaluated when the cores have nothing
  // better to do (fanned out: sent in the next batch while the pool has workers to spare); those
  // foreseen before and not now are dropped. On one thread here, none: the one thread would run
  // them in the moment between one count's end and the search asking the next.
  void foresee(const std::vector<int>& counts) {
    if (!batches_ && q_.spec.thread_count() < 2) return;
    std::vector<int> possible;
    for (int count : counts) {
      if (!certain_.count(count) && !best_.count(count)) possible.push_back(count);
    }
    if (batches_) {
      std::vector<ComparisonSpec> specs;
      for (int count : possible) specs.push_back(spec_(count));
      return batches_->possible(specs);
    }
    for (int count : possible_) {
      if (std::find(possible.begin(), possible.end(), count) == possible.end()) pool_.drop(count);
    }
    for (std::size_t i = 0; i < possible.size(); ++i) {
      pool_.queue(possible[i], kPossible + static_cast<long>(i), make(possible[i]));
    }
    possible_ = std::move(possible);
  }

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
  // The comparison of `count`, its simulations shown on the question's progress while the
  // search waits for it; with `given`, its replicas' results simulated elsewhere.
  SweepPool::MakeRun make(int count, std::optional<std::vector<ReplicaResult>> given = std::nullopt) {
    return [this, count, given = std::move(given)]() mutable {
      ComparisonSpec spec = spec_(count);
      spec.progress = [this, count](std::int64_t done, std::int64_t total) {
        const std::lock_guard<std::mutex> guard(shown_);
        reached_[count] = {done, total};
        if (awaited_ == count && q_.spec.progress) q_.spec.progress(done, total);
      };
      if (given) return std::make_unique<ComparisonRun>(std::move(spec), std::move(*given));
      return std::make_unique<ComparisonRun>(std::move(spec));
    };
  }

  const CapacityQuestion& q_;
  std::function<ComparisonSpec(int)> spec_;
  std::function<std::vector<ComparisonRow>(int, Comparison)> judged_;
  std::set<int> certain_;
  std::vector<int> possible_;
  std::map<int, ComparisonRow> best_;
  std::map<int, std::vector<ComparisonRow>> rows_;
  std::mutex shown_;  // the question's progress, `awaited_` and `reached_`
  int awaited_ = 0;
  std::map<int, std::pair<std::int64_t, std::int64_t>> reached_;  // by count: simulations done, of total
  std::optional<LookaheadBatches> batches_;  // fanned out: the counts sent ahead
  SweepPool pool_;  // last: its threads end before what they use
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

// The best of a replay's rows (one per queue order), judged, with its node count.
ComparisonRow best_on_pool(const CapacityQuestion& q, int nodes, Comparison replayed) {
  for (ComparisonRow& row : replayed.rows) {
    row.nodes = nodes;
    judge(q, row);
  }
  return best_row(replayed.rows);
}

// A row's candidate: its partitioner (or ranges file) and queue order.
std::pair<std::string, std::string> candidate_of(const ComparisonRow& row) { return {row.partitioner, row.order}; }

// Whether `candidate`'s row at `count` meets the target (false when it has none there).
bool candidate_meets(Evaluator& eval, const CapacityQuestion& q, int count,
                     const std::pair<std::string, std::string>& candidate) {
  for (const ComparisonRow& row : eval.rows(count)) {
    if (candidate_of(row) == candidate) return meets(q, row);
  }
  return false;
}

// The fewest workers of each candidate meeting the target at the most, each found by its own
// search over its own rows, so a candidate's answer (and the plan's, the fewest of them) does not
// depend on which other candidates are listed: the rows of a candidate at a count are the same
// whatever else runs (each replica seeded by what it is, sim/comparison.h), and the search
// never mixes in another candidate's answers (a search on "any candidate meets" took different
// paths through a non-monotone curve: optimal alone 22 workers, beside three others 11).
std::vector<CandidateFewest> fewest_per_candidate(Evaluator& eval, const CapacityQuestion& q, int lo, int hi) {
  std::vector<CandidateFewest> out;
  std::vector<std::pair<std::string, std::string>> meeting;
  for (const ComparisonRow& row : eval.rows(hi)) {
    if (meets(q, row)) meeting.push_back(candidate_of(row));
  }
  for (const auto& candidate : meeting) {
    FewestMeetingSearch search(lo, hi);
    while (const std::optional<int> asked = search.next()) {
      eval.foresee(search.possible(kStepsAhead));
      search.tell(candidate_meets(eval, q, *asked, candidate));
    }
    out.push_back({candidate.first, candidate.second, search.answer()});
  }
  return out;
}

}  // namespace

std::string target_text(const CapacityQuestion& q) {
  std::string text;
  auto add = [&](const std::string& what, data::Micros limit) {
    text += (text.empty() ? "" : ", ") + what + " <= " + data::typed_duration_text(limit);
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
    const bool failed = i < row.replica_failed.size() && row.replica_failed[i];
    met += !failed && (q.deadline <= 0 || row.makespans[i] <= q.deadline) && (!q.waits.p50 || w.p50 <= *q.waits.p50) &&
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

int pod_cap(const CapacityQuestion& q) {
  return q.spec.workers.empty() ? static_cast<int>(q.spec.recorded_items->size()) : q.spec.workers.front();
}

ComparisonSpec spec_on_pool(const CapacityQuestion& q, int nodes, int cap, const std::map<std::string, int>& type_limits) {
  ComparisonSpec spec = q.spec;
  NodePool& pool = spec.base.cluster.pools.pools.at(*q.node_pool);
  pool = pool_sized(pool, nodes);
  spec.workers = {cap};
  spec.base.scheduler.params.type_limits = type_limits;
  return spec;
}

ComparisonRow replay_on_pool(const CapacityQuestion& q, int nodes, int cap,
                             const std::map<std::string, int>& type_limits) {
  return best_on_pool(q, nodes, run_comparison(spec_on_pool(q, nodes, cap, type_limits)));
}

ComparisonSpec count_comparison(const CapacityQuestion& q, int count) {
  if (q.node_pool) return spec_on_pool(q, count, pod_cap(q), q.spec.base.scheduler.params.type_limits);
  ComparisonSpec s = q.spec;
  s.workers = {count};
  s.recorded_items.reset();
  return s;
}

std::vector<int> certain_counts(const CapacityQuestion& q) {
  const int lo = q.node_pool ? q.min_nodes : q.min_workers;
  const int hi = q.node_pool ? q.max_nodes : q.max_workers;
  std::vector<int> certain{hi};
  for (int n = lo; n < hi; n *= 2) certain.push_back(n);
  return certain;
}

CapacityAnswer plan_capacity(const CapacityQuestion& q) {
  validate(q);
  const bool nodes = q.node_pool.has_value();
  const int lo = nodes ? q.min_nodes : q.min_workers;
  const int hi = nodes ? q.max_nodes : q.max_workers;
  const std::vector<int> certain = certain_counts(q);
  const std::function<ComparisonSpec(int)> spec = [&q](int count) { return count_comparison(q, count); };
  std::function<std::vector<ComparisonRow>(int, Comparison)> judged = [&q](int, Comparison c) {
    for (ComparisonRow& row : c.rows) judge(q, row);
    return std::move(c.rows);
  };
  if (nodes) {
    judged = [&q](int n, Comparison c) { return std::vector<ComparisonRow>{best_on_pool(q, n, std::move(c))}; };
  }
  Evaluator eval(q, certain, spec, judged);
  FewestMeetingSearch search(lo, hi);
  eval.foresee(search.possible(kStepsAhead));
  std::optional<int> found;
  std::vector<CandidateFewest> by_candidate;
  if (!nodes) {
    by_candidate = fewest_per_candidate(eval, q, lo, hi);
    for (const CandidateFewest& c : by_candidate) found = std::min(found.value_or(c.count), c.count);
  } else if (eval.meets(hi)) {
    while (const std::optional<int> asked = search.next()) {
      eval.foresee(search.possible(kStepsAhead));
      search.tell(eval.meets(*asked));
    }
    found = search.answer();
  }
  eval.foresee({});
  for (int n : certain) eval.best(n);
  const ComparisonRow at_max = eval.best(hi);
  CapacityAnswer answer = eval.answer();
  answer.best_at_max = at_max;
  answer.by_candidate = by_candidate;
  if (found && nodes) answer.best = eval.best(*found);
  if (found && !nodes) {
    std::vector<ComparisonRow> winners;  // the candidates whose own answer is the fewest
    for (const ComparisonRow& row : eval.rows(*found)) {
      for (const CandidateFewest& c : by_candidate) {
        if (c.count == *found && candidate_of(row) == std::pair{c.partitioner, c.order}) winners.push_back(row);
      }
    }
    answer.best = best_row(winners);
  }
  return answer;
}

}  // namespace millrace::sim
