#include "sim/comparison.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <ostream>
#include <thread>
#include <unordered_map>

#include "data/error.h"
#include "data/model_span.h"
#include "data/readable_duration.h"
#include "partitioners/contiguous_bound.h"
#include "partitioners/registry.h"
#include "scheduler/concurrency_policy.h"
#include "scheduler/work_graph.h"
#include "sim/duration_draws.h"
#include "sim/sweep_pool.h"

namespace millrace::sim {

namespace {

// A plan to simulate: a partition (or the recorded run) with each item's duration: recorded
// (the recorded run), or predicted and, per replica, drawn from the model's noise (partitions).
// Its items and work graph are built once and shared by every simulation of it.
struct PlanCase {
  std::string name;
  std::shared_ptr<const scheduler::PlannedWork> work;
  std::vector<data::Micros> durations;  // by position: recorded, or the model's predictions
  bool drawn = false;                   // replicas draw durations from the model's noise

  std::vector<data::Range> ranges() const {
    std::vector<data::Range> out;
    out.reserve(work->size());
    for (std::size_t i = 0; i < work->size(); ++i) out.push_back(*work->range(i));
    return out;
  }
};

struct Combination {
  std::size_t plan = 0;
  int workers = 0;
  scheduler::QueueOrder order = scheduler::QueueOrder::kPlan;
};

data::Micros smallest_startup(const StartupLatency& startup) {
  if (startup.samples.empty()) return startup.constant;
  return *std::min_element(startup.samples.begin(), startup.samples.end());
}

partitioners::PartitionParams params_for(const ComparisonSpec& spec, const std::string& name, int workers) {
  partitioners::PartitionParams p = spec.partition;
  p.span = spec.span;
  p.model = spec.model;
  p.workers = workers;
  return partitioners::with_defaults(name, p, "--partitioners");
}

PlanCase plan_of(const ComparisonSpec& spec, const std::string& name, const partitioners::Partition& partition,
                 std::vector<data::Quantities> requests = {}, const std::vector<std::size_t>& plan_order = {}) {
  std::vector<data::Range> ranges = partition.work_ranges();
  if (!plan_order.empty()) {
    std::vector<data::Range> ordered;
    std::vector<data::Quantities> ordered_requests;
    for (std::size_t i : plan_order) {
      ordered.push_back(ranges.at(i));
      if (!requests.empty()) ordered_requests.push_back(i < requests.size() ? requests[i] : data::Quantities{});
    }
    ranges = std::move(ordered);
    requests = std::move(ordered_requests);
  }
  std::vector<data::Micros> durations;
  durations.reserve(ranges.size());
  for (const data::Range& r : ranges) durations.push_back(spec.model->predict(r));
  return PlanCase{name,
                  std::make_shared<const scheduler::PlannedWork>(std::move(ranges), durations, requests,
                                                                 spec.base.scheduler.plan_name),
                  std::move(durations), spec.noise && !spec.model->noise().empty()};
}

void validate(const ComparisonSpec& spec) {
  if (spec.workers.empty()) throw data::Error("--workers", "needs at least one worker count");
  for (int w : spec.workers) {
    if (w < 1) throw data::Error("--workers " + std::to_string(w), "worker counts must be >= 1");
  }
  if (spec.replicas < 1) throw data::Error("--replicas " + std::to_string(spec.replicas), "must be >= 1");
  if (spec.orders.empty()) throw data::Error("--order", "needs at least one queue order");
  for (const std::string& name : spec.partitioners) partitioners::find_partitioner(name, "--partitioners");
  scheduler::make_policy(spec.base.scheduler.policy, spec.base.scheduler.params);
  if (!spec.partitioners.empty() && spec.model == nullptr) {
    throw data::Error("--partitioners", "simulating a new partition needs a cost model (--model)");
  }
  if (spec.model != nullptr) {
    const data::Range units{spec.span.first - spec.partition.overlap, spec.span.count + spec.partition.overlap};
    data::require_within_model_span(*spec.model, units, "span " + data::span_text(spec.span));
  }
  for (const ListedPartition& listed : spec.listed) {
    if (spec.model == nullptr) throw data::Error(listed.name, "simulating listed ranges needs a cost model (--model)");
    for (const data::Range& r : listed.partition.work_ranges()) {
      data::require_within_model_span(*spec.model, r, listed.name + ": range " + r.end_count());
    }
  }
  if (spec.recorded_items && spec.recorded_items->size() != spec.recorded_durations.size()) {
    throw data::Error("recorded run", "every recorded item needs a duration");
  }
}

// The p-quantile of sorted makespans by nearest rank: the least value at or above which a share
// p of the replicas lies (a plan meets a deadline with confidence p when this is within it).
data::Micros nearest_rank(const std::vector<data::Micros>& sorted, double p) {
  const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(sorted.size()) - 1e-9));
  return sorted[std::max<std::size_t>(rank, 1) - 1];
}

// The replicas' cost band, when they are priced.
std::optional<CostBand> cost_band(const std::vector<ReplicaResult>& replicas) {
  if (!replicas.front().cost) return std::nullopt;
  std::vector<data::Money> amounts;
  std::vector<data::Micros> sorted;  // millionths, for the nearest ranks
  for (const ReplicaResult& r : replicas) {
    amounts.push_back(r.cost->total);
    sorted.push_back(r.cost->total.millionths);
  }
  std::sort(sorted.begin(), sorted.end());
  CostBand band{data::mean_of(amounts), {nearest_rank(sorted, 0.1)}, {nearest_rank(sorted, 0.5)},
                {nearest_rank(sorted, 0.9)}, replicas.front().cost->currency, {}};
  for (std::size_t p = 0; p < replicas.front().cost->pools.size(); ++p) {
    std::vector<data::Money> parts;
    for (const ReplicaResult& r : replicas) parts.push_back(r.cost->pools.at(p).amount);
    band.pools.push_back({replicas.front().cost->pools[p].name, data::mean_of(parts)});
  }
  return band;
}

ComparisonRow summarise(const PlanCase& plan, const Combination& c, const std::vector<ReplicaResult>& replicas,
                        data::Micros startup, data::Micros contiguous) {
  ComparisonRow row;
  row.partitioner = plan.name;
  row.workers = c.workers;
  row.order = scheduler::to_string(c.order);
  row.ranges = plan.work->size();
  row.replicas = static_cast<int>(replicas.size());
  row.longest_range = plan.durations.empty() ? 0 : *std::max_element(plan.durations.begin(), plan.durations.end());
  row.lower_bound = lower_bound(*plan.work, plan.durations, c.workers, startup);
  row.contiguous_bound = contiguous;
  double sum = 0;
  row.makespan_min = replicas.front().makespan;
  for (const ReplicaResult& r : replicas) {
    sum += static_cast<double>(r.makespan);
    row.makespan_min = std::min(row.makespan_min, r.makespan);
    row.makespan_max = std::max(row.makespan_max, r.makespan);
    row.utilisation += r.utilisation;
    row.node_hours += r.node_hours;
    row.tail_below_tenth += r.tail_below_tenth;
    row.failed_attempts += static_cast<double>(r.failed_attempts);
    row.failed_runs += r.failed ? 1 : 0;
    row.nodes_interrupted += static_cast<double>(r.nodes_interrupted);
    row.attempts_interrupted += static_cast<double>(r.attempts_interrupted);
    keep_riskiest(row.survival_risks, r.survival_risks);
    row.makespans.push_back(r.makespan);
    row.replica_failed.push_back(r.failed);
    row.replica_waits.push_back(r.waits);
    row.wait_p50 += r.waits.p50;
    row.wait_p90 += r.waits.p90;
    row.wait_p99 += r.waits.p99;
    row.wait_max = std::max(row.wait_max, r.waits.max);
    row.mean_pending += r.waits.mean_pending;
  }
  std::vector<data::Micros> sorted = row.makespans;
  std::sort(sorted.begin(), sorted.end());
  row.makespan_p10 = nearest_rank(sorted, 0.1);
  row.makespan_p50 = nearest_rank(sorted, 0.5);
  row.makespan_p90 = nearest_rank(sorted, 0.9);
  const double n = static_cast<double>(replicas.size());
  const double mean = sum / n;
  row.makespan_mean = static_cast<data::Micros>(std::llround(mean));
  row.makespan_stddev = static_cast<data::Micros>(std::llround(replica_spread(row.makespans)));
  row.ratio_to_lower_bound = row.lower_bound > 0 ? mean / static_cast<double>(row.lower_bound) : 0;
  row.ratio_to_contiguous_bound = contiguous > 0 ? mean / static_cast<double>(contiguous) : 0;
  row.utilisation /= n;
  row.node_hours /= n;
  row.tail_below_tenth = static_cast<data::Micros>(std::llround(static_cast<double>(row.tail_below_tenth) / n));
  row.failed_attempts /= n;
  row.nodes_interrupted /= n;
  row.attempts_interrupted /= n;
  for (data::Micros* wait : {&row.wait_p50, &row.wait_p90, &row.wait_p99}) {
    *wait = static_cast<data::Micros>(std::llround(static_cast<double>(*wait) / n));
  }
  row.mean_pending /= n;
  row.cost = cost_band(replicas);
  return row;
}

}  // namespace

std::uint64_t replica_seed(std::uint64_t seed, const std::string& plan, int workers, scheduler::QueueOrder order,
                           int replica) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (unsigned char c : plan) h = (h ^ c) * 1099511628211ULL;
  h = splitmix(h ^ seed);
  h = splitmix(h ^ static_cast<std::uint64_t>(workers));
  h = splitmix(h ^ static_cast<std::uint64_t>(order));
  return splitmix(h ^ static_cast<std::uint64_t>(replica));
}

data::Micros lower_bound(const scheduler::PlannedWork& plan, const std::vector<data::Micros>& durations, int workers,
                         data::Micros startup) {
  data::Micros total = 0;
  for (data::Micros d : durations) total += d;
  const data::Micros spread = (total + workers - 1) / workers;
  return std::max(plan.graph().critical_path(plan, durations), spread) + startup;
}

data::Micros lower_bound(const std::vector<data::WorkItem>& plan, const std::vector<data::Micros>& durations,
                         int workers, data::Micros startup, const std::string& plan_name) {
  return lower_bound(scheduler::PlannedWork(plan, plan_name), durations, workers, startup);
}

double replica_spread(const std::vector<data::Micros>& values) {
  double sum = 0, sum_sq = 0;
  for (data::Micros v : values) {
    const double x = static_cast<double>(v);
    sum += x;
    sum_sq += x * x;
  }
  const double n = static_cast<double>(values.size());
  return std::sqrt(std::max(0.0, sum_sq / n - (sum / n) * (sum / n)));
}

unsigned ComparisonSpec::thread_count() const {
  return threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
}

bool ComparisonSpec::draws_at_random() const {
  const bool drawn_durations = noise && model != nullptr && !model->noise().empty();
  return drawn_durations || base.cluster.fail_prob > 0 || base.cluster.startup.samples.size() > 1 ||
         base.cluster.fitted != nullptr;
}

// A partition built in steps (partitioners::Partitioner::candidates): one task per candidate of
// its generator, then one joining them into the plan once they all ended.
struct PartitionBuild {
  std::string partitioner;
  partitioners::PartitionParams params;
  std::vector<partitioners::Candidate> candidates;  // by candidate; a loser freed when it is known
  std::size_t first_task = 0;                       // its candidates' tasks: [first_task, join)
  std::size_t join = 0;                             // the join's task
  std::size_t ended = 0;                            // candidate tasks ended
  std::optional<std::size_t> best;                  // the first lowest scoring of those ended well

  // Candidate i ended well: keeps the better of it and the best so far (the lower score, or the
  // earlier on equal scores, so the choice is the sequential one whatever order they end in) and
  // frees the other, so a build holds the best of those ended beside those being built, not every
  // candidate until the join.
  void ended_well(std::size_t i) {
    if (!best) {
      best = i;
      return;
    }
    const double score = candidates[i].score, best_score = candidates[*best].score;
    const bool better = score < best_score || (score == best_score && i < *best);
    candidates[better ? *best : i] = {};
    if (better) best = i;
  }
};

// Plans: the recorded run, then one partition per partitioner and worker count (built by the
// first tasks), then the listed partitions. Tasks: [0, build_tasks) build the partitions, each
// its candidates then its join, then one per replica of each combination, combination-major.
struct ComparisonRun::State {
  ComparisonSpec spec;
  bool recorded = false;  // plans[0] is the recorded run
  std::vector<PlanCase> plans;
  std::vector<char> plan_ready;
  std::vector<Combination> combos;
  std::size_t first_partition = 0;
  std::vector<PartitionBuild> builds;      // of plans[first_partition + b]
  std::vector<std::size_t> build_of;       // by build task
  std::vector<char> build_taken;           // by build task
  std::size_t replicas = 0;
  std::vector<ReplicaResult> results;  // by replica task
  std::vector<ReplicaResult> given;    // by replica task, simulated elsewhere; else empty
  std::optional<Shard> only;           // a shard's run: its replicas only
  std::vector<std::exception_ptr> errors;  // by task
  std::vector<char> taken;                 // by replica task
  std::size_t first_unbuilt = 0;  // every build task before it is taken
  std::size_t first_untaken = 0;  // every replica task before it is taken
  std::size_t ended = 0;
  std::int64_t simulated = 0;

  std::size_t build_tasks() const { return build_of.size(); }
  std::size_t tasks() const { return build_tasks() + results.size(); }
  // Runs build task t: a candidate into its build, or the join into the build's plan (nothing
  // when a candidate failed: its error is the partition's).
  void build(std::size_t t);
  // Whether one of the tasks [first, end) failed.
  bool failed(std::size_t first, std::size_t end) const {
    return std::any_of(errors.begin() + static_cast<std::ptrdiff_t>(first),
                       errors.begin() + static_cast<std::ptrdiff_t>(end), [](const auto& e) { return e != nullptr; });
  }
  // Simulates replica task i (its plan built) into results[i].
  void simulate_replica(std::size_t i);
};

std::vector<std::vector<ReplicaResult>> simulate_elsewhere(const std::vector<ComparisonSpec>& specs) {
  if (specs.empty()) return {};
  for (const ComparisonSpec& spec : specs) validate(spec);
  std::vector<std::vector<ReplicaResult>> results = specs.front().elsewhere->batch(specs);
  if (results.size() != specs.size()) {
    throw data::Error("the sweep's shards", "returned the results of " + std::to_string(results.size()) +
                                                " comparisons of " + std::to_string(specs.size()));
  }
  return results;
}

namespace {

// The comparison's replicas simulated elsewhere, sent alone; none when they are simulated here.
std::vector<ReplicaResult> sent_alone(const ComparisonSpec& spec) {
  if (!spec.elsewhere) return {};
  return std::move(simulate_elsewhere({spec}).front());
}

}  // namespace

ComparisonRun::ComparisonRun(ComparisonSpec spec) : state_(std::make_unique<State>()) {
  std::vector<ReplicaResult> given = sent_alone(spec);
  prepare(std::move(spec), std::move(given));
}

ComparisonRun::ComparisonRun(ComparisonSpec spec, std::vector<ReplicaResult> given) : state_(std::make_unique<State>()) {
  prepare(std::move(spec), std::move(given));
}

void ComparisonRun::prepare(ComparisonSpec spec, std::vector<ReplicaResult> given) {
  validate(spec);
  State& s = *state_;
  s.given = std::move(given);
  s.spec = std::move(spec);
  const ComparisonSpec& c = s.spec;
  if (c.recorded_items) {
    std::vector<data::WorkItem> items = std::move(*s.spec.recorded_items);
    s.spec.recorded_items.reset();
    for (data::WorkItem& item : items) item.predicted = c.model && item.range ? c.model->predict(*item.range) : 0;
    auto work = std::make_shared<const scheduler::PlannedWork>(items, c.base.scheduler.plan_name);
    s.plans.push_back(PlanCase{"recorded", std::move(work), c.recorded_durations, false});
    s.recorded = true;
    for (int w : c.workers) {
      for (scheduler::QueueOrder order : c.orders) s.combos.push_back({0, w, order});
    }
  }
  s.first_partition = s.plans.size();
  for (const std::string& name : c.partitioners) {
    for (int w : c.workers) {
      PartitionBuild b;
      b.partitioner = name;
      b.params = params_for(c, name, w);
      b.first_task = s.build_of.size();
      b.candidates.resize(partitioners::find_partitioner(name).candidates(b.params));
      b.join = b.first_task + b.candidates.size();
      s.build_of.insert(s.build_of.end(), b.candidates.size() + 1, s.builds.size());
      s.builds.push_back(std::move(b));
      s.plans.emplace_back();
      for (scheduler::QueueOrder order : c.orders) s.combos.push_back({s.plans.size() - 1, w, order});
    }
  }
  s.build_taken.assign(s.build_tasks(), 0);
  for (const ListedPartition& listed : c.listed) {
    s.plans.push_back(plan_of(c, listed.name, listed.partition, listed.requests, listed.plan_order));
    for (int w : c.workers) {
      for (scheduler::QueueOrder order : c.orders) s.combos.push_back({s.plans.size() - 1, w, order});
    }
  }
  s.plan_ready.assign(s.plans.size(), 1);
  std::fill_n(s.plan_ready.begin() + static_cast<std::ptrdiff_t>(s.first_partition), s.builds.size(), 0);
  s.replicas = static_cast<std::size_t>(c.replicas);
  s.results.resize(s.combos.size() * s.replicas);
  s.taken.assign(s.results.size(), 0);
  s.errors.resize(s.tasks());
  if (!s.given.empty() && s.given.size() != s.results.size()) {
    throw data::Error("the sweep's shards", "returned " + std::to_string(s.given.size()) + " replica results of " +
                                                std::to_string(s.results.size()));
  }
}

namespace {

// A shard's replicas are simulated here, whatever the spec says of the others.
ComparisonSpec simulated_here(ComparisonSpec spec) {
  spec.elsewhere = nullptr;
  return spec;
}

}  // namespace

ComparisonRun::ComparisonRun(ComparisonSpec spec, const Shard& shard) : ComparisonRun(simulated_here(std::move(spec))) {
  State& s = *state_;
  const std::string input = "shard of combination " + std::to_string(shard.combination) + ", replicas " +
                            std::to_string(shard.first_replica) + "+" + std::to_string(shard.replicas);
  if (shard.combination >= s.combos.size() || shard.first_replica < 0 || shard.replicas < 1 ||
      static_cast<std::size_t>(shard.first_replica) + static_cast<std::size_t>(shard.replicas) > s.replicas) {
    throw data::Error(input, "outside the comparison's " + std::to_string(s.combos.size()) + " combinations of " +
                                 std::to_string(s.replicas) + " replicas");
  }
  s.only = shard;
  const std::size_t first = shard.combination * s.replicas + static_cast<std::size_t>(shard.first_replica);
  for (std::size_t i = 0; i < s.taken.size(); ++i) {
    if (i < first || i >= first + static_cast<std::size_t>(shard.replicas)) {
      s.taken[i] = 1;
      ++s.ended;
    }
  }
  const std::size_t plan = s.combos[shard.combination].plan;
  for (std::size_t b = 0; b < s.builds.size(); ++b) {
    if (s.first_partition + b == plan) continue;
    for (std::size_t t = s.builds[b].first_task; t <= s.builds[b].join; ++t) {
      s.build_taken[t] = 1;
      ++s.ended;
    }
  }
}

ComparisonRun::~ComparisonRun() = default;

std::size_t ComparisonRun::tasks() const { return state_->tasks(); }

std::optional<std::size_t> ComparisonRun::take() {
  State& s = *state_;
  while (s.first_unbuilt < s.build_tasks() && s.build_taken[s.first_unbuilt]) ++s.first_unbuilt;
  for (std::size_t t = s.first_unbuilt; t < s.build_tasks(); ++t) {
    const PartitionBuild& b = s.builds[s.build_of[t]];
    if (!s.build_taken[t] && (t != b.join || b.ended == b.join - b.first_task)) {
      s.build_taken[t] = 1;
      return t;
    }
  }
  while (s.first_untaken < s.taken.size() && s.taken[s.first_untaken]) ++s.first_untaken;
  for (std::size_t i = s.first_untaken; i < s.taken.size(); ++i) {
    if (!s.taken[i] && s.plan_ready[s.combos[i / s.replicas].plan]) {
      s.taken[i] = 1;
      return s.build_tasks() + i;
    }
  }
  return std::nullopt;
}

void ComparisonRun::run(std::size_t task) {
  State& s = *state_;
  try {
    if (task < s.build_tasks()) {
      s.build(task);
    } else {
      s.simulate_replica(task - s.build_tasks());
    }
  } catch (...) {
    s.errors[task] = std::current_exception();
  }
}

void ComparisonRun::State::build(std::size_t t) {
  PartitionBuild& b = builds[build_of[t]];
  if (t < b.join) {
    const std::size_t i = t - b.first_task;
    b.candidates[i] = partitioners::find_partitioner(b.partitioner).candidate(b.params, i);
    return;
  }
  if (failed(b.first_task, t)) return;
  std::vector<partitioners::Candidate> chosen;
  chosen.push_back(std::move(b.candidates[*b.best]));
  b.candidates = {};
  plans[first_partition + build_of[t]] =
      plan_of(spec, b.partitioner, partitioners::chosen_partition(b.partitioner, b.params, std::move(chosen)));
}

void ComparisonRun::State::simulate_replica(std::size_t i) {
  if (!given.empty()) {
    results[i] = given[i];
    return;
  }
  const Combination& c = combos[i / replicas];
  const PlanCase& plan = plans[c.plan];
  SimulationConfig config = spec.base;
  config.record_timeline = false;
  config.keep_attempt_log = false;
  config.predict_from_durations = false;
  config.seed = replica_seed(spec.seed, plan.name, c.workers, c.order, static_cast<int>(i % replicas));
  const int slots = std::max(1, config.cluster.slots_per_node);
  config.cluster.nodes = (c.workers + slots - 1) / slots;
  config.scheduler.params.workers = c.workers;
  config.scheduler.params.max_in_flight = c.workers;
  config.scheduler.params.min_workers = std::min(std::max(1, config.scheduler.params.min_workers), c.workers);
  config.scheduler.order = c.order;
  if (recorded && c.plan == 0) config.cluster.recorded_ends = spec.recorded_ends;
  const SimulationResult r =
      plan.drawn ? simulate(plan.work, draw_durations(*spec.model, plan.ranges(), duration_seed(config.seed), true),
                            config)
                 : simulate(plan.work, plan.durations, config);
  results[i] = {r.makespan, r.utilisation, r.node_hours, r.cost, r.summary.tail.below_tenth,
                r.summary.failed_attempts, r.run_failed || r.stalled, r.waits, r.nodes_interrupted,
                r.attempts_interrupted, r.survival_risks};
}

bool ComparisonRun::finished(std::size_t task) {
  State& s = *state_;
  ++s.ended;
  if (task < s.build_tasks()) {
    PartitionBuild& b = s.builds[s.build_of[task]];
    if (task < b.join) {
      ++b.ended;
      if (!s.errors[task]) b.ended_well(task - b.first_task);
      return s.ended == s.tasks();
    }
    const std::size_t plan = s.first_partition + s.build_of[task];
    if (!s.failed(b.first_task, task + 1)) {
      s.plan_ready[plan] = 1;
    } else {
      // Its replicas cannot run: they end here, unrun (finish() reports the partition's error).
      for (std::size_t i = 0; i < s.taken.size(); ++i) {
        if (s.combos[i / s.replicas].plan == plan) {
          s.taken[i] = 1;
          ++s.ended;
        }
      }
    }
  } else if (s.spec.progress) {
    s.spec.progress(++s.simulated, static_cast<std::int64_t>(s.results.size()));
  }
  return s.ended == s.tasks();
}

Comparison ComparisonRun::finish() {
  const std::unique_ptr<State> state = std::move(state_);
  const State& s = *state;
  for (const std::exception_ptr& e : s.errors) {
    if (e) std::rethrow_exception(e);
  }
  Comparison comparison;
  const data::Micros startup = smallest_startup(s.spec.base.cluster.startup);
  std::unordered_map<int, data::Micros> contiguous;  // by worker count
  for (int w : s.spec.workers) {
    if (s.spec.model != nullptr) {
      contiguous[w] =
          partitioners::contiguous_bound(*s.spec.model, s.spec.span, s.spec.partition.overlap, w).bound + startup;
    }
  }
  for (std::size_t c = 0; c < s.combos.size(); ++c) {
    const auto first = s.results.begin() + static_cast<std::ptrdiff_t>(c * s.replicas);
    const std::vector<ReplicaResult> mine(first, first + static_cast<std::ptrdiff_t>(s.replicas));
    comparison.rows.push_back(summarise(s.plans[s.combos[c].plan], s.combos[c], mine, startup, contiguous[s.combos[c].workers]));
  }
  return comparison;
}

std::vector<ReplicaResult> ComparisonRun::finish_shard() {
  const std::unique_ptr<State> state = std::move(state_);
  for (const std::exception_ptr& e : state->errors) {
    if (e) std::rethrow_exception(e);
  }
  const auto first = state->results.begin() +
                     static_cast<std::ptrdiff_t>(state->only->combination * state->replicas +
                                                 static_cast<std::size_t>(state->only->first_replica));
  return {first, first + state->only->replicas};
}

std::size_t combinations_of(const ComparisonSpec& spec) {
  const std::size_t plans = (spec.recorded_items ? 1 : 0) + spec.partitioners.size() + spec.listed.size();
  return plans * spec.workers.size() * spec.orders.size();
}

std::vector<ReplicaResult> run_shard(const ComparisonSpec& spec, const Shard& shard) {
  ComparisonRun run(spec, shard);
  while (const std::optional<std::size_t> task = run.take()) {
    run.run(*task);
    run.finished(*task);
  }
  return run.finish_shard();
}

Comparison run_comparison(const ComparisonSpec& spec) {
  SweepPool pool(spec.thread_count());
  pool.queue(0, 0, [&spec] { return std::make_unique<ComparisonRun>(spec); });
  return pool.wait(0);
}

std::vector<SurvivalRisk> survival_risks(const Comparison& comparison) {
  std::vector<SurvivalRisk> risks;
  for (const ComparisonRow& row : comparison.rows) keep_riskiest(risks, row.survival_risks);
  return risks;
}

void print_table(const Comparison& comparison, std::ostream& out) {
  data::Micros largest = 0;
  for (const ComparisonRow& r : comparison.rows) largest = std::max(largest, r.makespan_max);
  const data::DisplayUnit unit = data::display_unit(largest);
  auto t = [&](data::Micros us) { return unit.of(us); };
  const bool priced = !comparison.rows.empty() && comparison.rows.front().cost;
  char line[400];
  std::snprintf(line, sizeof line, "%-14s %7s %-9s %6s %9s %9s %6s %9s %6s %9s %9s %9s %9s %8s %6s %10s %9s %6s %9s%s\n",
                "partitioner", "workers", "order", "ranges", "longest", "pred-lb", "m/lb", "contig", "m/ct", "mean",
                "p50", "p90", "max", "stddev", "util", "node-h", "tail", "failed", "wait-p90",
                priced ? "  cost mean / p90" : "");
  out << "times in " << unit.name
      << "; pred-lb = max(critical path, work / workers) + start-up of the row's own partition with its durations "
         "as predicted (the recorded run: as recorded), the least a run taking exactly those needs: replicas drawing "
         "from the noise may beat it (m/lb < 1); contig = the same for the best contiguous partition of the span on "
         "these workers; m/lb, m/ct = mean / pred-lb, mean / contig; mean, p50, p90, max of the makespan over "
         "replicas; tail = final stretch with < 10% of peak workers busy; wait-p90 = items' submit -> start wait, "
         "p90 (mean over replicas)"
      << (priced ? "; cost = what the run costs, mean and p90 over replicas" : "") << "\n"
      << line;
  for (const ComparisonRow& r : comparison.rows) {
    std::snprintf(line, sizeof line,
                  "%-14s %7d %-9s %6zu %9.3f %9.3f %6.3f %9.3f %6.3f %9.3f %9.3f %9.3f %9.3f %8.3f %6.3f %10s %9.3f "
                  "%6.1f %9.3f",
                  r.partitioner.c_str(), r.workers, r.order.c_str(), r.ranges, t(r.longest_range), t(r.lower_bound),
                  r.ratio_to_lower_bound, t(r.contiguous_bound), r.ratio_to_contiguous_bound, t(r.makespan_mean),
                  t(r.makespan_p50), t(r.makespan_p90), t(r.makespan_max), t(r.makespan_stddev), r.utilisation,
                  data::readable_number(r.node_hours).c_str(), t(r.tail_below_tenth), r.failed_attempts, t(r.wait_p90));
    out << line;
    out << (r.cost ? "  " + mean_and_p90_text(*r.cost) : "") << "\n";
  }
}

nlohmann::json to_json(const Comparison& comparison) {
  nlohmann::json rows = nlohmann::json::array();
  for (const ComparisonRow& r : comparison.rows) {
    rows.push_back({{"partitioner", r.partitioner},
                    {"workers", r.workers},
                    {"order", r.order},
                    {"ranges", r.ranges},
                    {"replicas", r.replicas},
                    {"longest_range_us", r.longest_range},
                    {"lower_bound_us", r.lower_bound},
                    {"contiguous_bound_us", r.contiguous_bound},
                    {"ratio_to_contiguous_bound", r.ratio_to_contiguous_bound},
                    {"makespan_mean_us", r.makespan_mean},
                    {"makespan_min_us", r.makespan_min},
                    {"makespan_max_us", r.makespan_max},
                    {"makespan_p10_us", r.makespan_p10},
                    {"makespan_p50_us", r.makespan_p50},
                    {"makespan_p90_us", r.makespan_p90},
                    {"makespan_stddev_us", r.makespan_stddev},
                    {"ratio_to_lower_bound", r.ratio_to_lower_bound},
                    {"utilisation", r.utilisation},
                    {"node_hours", r.node_hours},
                    {"tail_below_tenth_us", r.tail_below_tenth},
                    {"failed_attempts_mean", r.failed_attempts},
                    {"failed_runs", r.failed_runs},
                    {"wait_p50_us", r.wait_p50},
                    {"wait_p90_us", r.wait_p90},
                    {"wait_p99_us", r.wait_p99},
                    {"wait_max_us", r.wait_max},
                    {"mean_pending", r.mean_pending},
                    {"makespans_us", r.makespans}});
    if (r.deadline_met) rows.back()["deadline_met"] = *r.deadline_met;
    if (r.nodes > 0) rows.back()["nodes"] = r.nodes;
    for (const MixPart& part : r.mix) {
      rows.back()["mix"].push_back(
          {{"pool", part.pool}, {"capacity_type", part.spot ? "spot" : "on-demand"}, {"nodes", part.nodes}});
    }
    if (r.cost) rows.back()["cost"] = to_json(*r.cost);
    if (r.nodes_interrupted > 0) {
      rows.back()["nodes_interrupted_mean"] = r.nodes_interrupted;
      rows.back()["attempts_interrupted_mean"] = r.attempts_interrupted;
    }
  }
  return {{"rows", rows}};
}

}  // namespace millrace::sim
