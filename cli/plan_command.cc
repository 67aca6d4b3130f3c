// `millrace plan`: capacity by simulation (sim/capacity_plan.h), stored in the trace store like
// compare results. Two questions:
//  - workers (a cost model): the fewest workers (and the partition) that meet a deadline with a
//    given confidence (the share of replicas on time, each replica drawing the ranges' durations
//    from the model's noise, so the confidence covers the uncertainty of the work itself), and
//    the cost curve of workers vs makespan vs node-hours;
//  - nodes (--node-pools or --machine with --run, a job-per-item deployment): the fewest nodes
//    of a pool meeting a deadline and/or wait targets (--wait-p90 30m), the cost curve of nodes
//    vs makespan vs waits vs node-hours, and on that many nodes the per-type and total caps that
//    still meet the target and those beyond which more concurrency no longer helps
//    (sim/cap_search.h).
// With prices (sim/run_cost.h) every answer and curve says what it costs; `--minimize cost` answers
// the cheapest configuration meeting the target instead, beside the fewest's cost, and the
// frontier of time against money (sim/cheapest_plan.h); over several pools (--pool repeated, or
// every pool when none is named) the cheapest mix of their nodes, such as on-demand and spot
// (sim/pool_mix.h), and why not spot when it chooses none.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "cli/commands.h"
#include "cli/comparison_options.h"
#include "cli/fit_scope.h"
#include "cli/stored_plan.h"
#include "data/readable_duration.h"
#include "cli/current_step.h"
#include "cli/help_layout.h"
#include "data/typed_duration.h"
#include "cli/option_checks.h"
#include "cli/progress_display.h"
#include "cli/sweep_fanout.h"
#include "data/error.h"
#include "data/run_summary.h"
#include "sim/cap_search.h"
#include "sim/capacity_plan.h"
#include "sim/cheapest_plan.h"
#include "sim/comparison_store.h"
#include "sim/lookahead_batches.h"
#include "sim/sweep_pool.h"

namespace millrace::cli {

namespace {

struct PlanOptions {
  ComparisonOptions common;
  data::Micros deadline = 0;
  data::Micros wait_p50 = -1;  // -1: no target
  data::Micros wait_p90 = -1;
  data::Micros wait_p99 = -1;
  double confidence = 0.9;
  int min_workers = 1;
  int max_workers = 0;
  int min_nodes = 1;
  int max_nodes = 0;
  std::vector<std::string> pools;  // --pool, repeatable: the pools searched (several: a mix)
  bool policy_given = false;
  int seed_spread = 0;  // workers: also search with this many seeds (seed, seed + 1, ...) and print the spread
  std::string minimize = "workers";  // or "cost": the cheapest configuration meeting the target
  SweepOptions sweep;                 // --cluster: the simulations fanned out over a worker pool
};

// ", cost 20.00 USD (p10-p90 18.40-22.10 USD)" (the median's) when the row is priced.
std::string cost_part(const sim::ComparisonRow& row) {
  return row.cost ? ", cost " + sim::band_text(*row.cost, row.cost->p50) : "";
}

// "  20.00 USD / 22.10 USD": a curve's cost cell, mean and p90 (nothing when not priced).
std::string cost_cell(const sim::ComparisonRow& row) { return row.cost ? "  " + sim::mean_and_p90_text(*row.cost) : ""; }

// "143 workers", "4 nodes of pool 'standard'" or a mix's "3 spot nodes of pool 'cheap' and 1
// on-demand node of pool 'standard'".
std::string configuration(const sim::ComparisonRow& row, const std::string& pool) {
  if (!row.mix.empty()) return sim::mix_text(row);
  return row.nodes > 0 ? data::counted(row.nodes, "node") + " of pool '" + pool + "'"
                       : data::counted(row.workers, "worker") + " (" + row.partitioner + ", " + row.order + " order)";
}

// The answer of --minimize cost, its first line: "cheapest meeting makespan <= 24.00 h: 150
// workers (...), mean cost 20.00 USD (p10-p90 ...), median makespan 23.40 h (p10-p90 ...), in 95%
// of 20 replicas; the fewest, 143 workers, costs 21.00 USD" (a mix: the share asked, and "the
// fewest nodes"); then, on spot nodes, the deadline risk their interruptions add.
void print_cheapest(const sim::CapacityQuestion& question, const sim::ComparisonRow& c,
                    const std::optional<sim::ComparisonRow>& fewest, const std::string& pool, std::ostream& out) {
  const bool mix = !c.mix.empty();
  out << "cheapest meeting " << sim::target_text(question) << ": " << configuration(c, pool) << ", mean cost "
      << sim::band_text(*c.cost, c.cost->mean) << ", median makespan " << data::readable_duration(c.makespan_p50)
      << (c.makespan_p10 == c.makespan_p90 ? std::string()
                                           : " (p10-p90 " + data::readable_band(c.makespan_p10, c.makespan_p90) + ")")
      << ", on target in " << std::lround(100 * *c.deadline_met) << "% of " << data::counted(c.replicas, "replica")
      << (mix ? " (asked: " + std::to_string(std::lround(100 * question.confidence)) + "%)" : "");
  if (fewest) {
    out << (mix ? "; the fewest nodes, " : "; the fewest, ") << configuration(*fewest, pool) << ", costs "
        << data::money_text(fewest->cost->mean, fewest->cost->currency) << " (mean)";
  }
  out << "\n";
  if (const std::optional<sim::SpotRisk> risk = sim::spot_risk(question, c)) {
    out << "spot interruptions: on target in " << std::lround(100 * risk->with_interruptions) << "% of replicas with "
        << "them, " << std::lround(100 * risk->without_interruptions) << "% on the same pools on-demand\n";
  }
}

// The rows of `evaluated` meeting the question's target.
std::vector<sim::ComparisonRow> meeting_target(const sim::CapacityQuestion& question,
                                               const std::vector<sim::ComparisonRow>& evaluated) {
  std::vector<sim::ComparisonRow> meeting;
  for (const sim::ComparisonRow& r : evaluated) {
    if (sim::meets(question, r)) meeting.push_back(r);
  }
  return meeting;
}

// The frontier of time against money over `evaluated`, in two parts: among the configurations
// meeting the target (the cheapest, the answer, is on it, marked), then those of the whole
// frontier that miss it (cheaper or sooner on average, but on target in too few replicas); then
// what the cheapest (null when none meets the target) was chosen among.
void print_frontier(const sim::CapacityQuestion& question, const std::vector<sim::ComparisonRow>& evaluated,
                    const sim::ComparisonRow* cheapest, const std::string& pool, const std::string& chosen_among,
                    std::ostream& out) {
  const std::vector<sim::ComparisonRow> meeting = meeting_target(question, evaluated);
  auto line = [&](const sim::ComparisonRow& r) {
    out << "  " << configuration(r, pool) << ": mean makespan " << data::readable_duration(r.makespan_mean)
        << ", mean cost " << data::money_text(r.cost->mean, r.cost->currency);
  };
  out << "time against money among the configurations meeting the target (none of them both sooner and cheaper "
         "on average):\n";
  for (const sim::ComparisonRow& r : sim::time_money_frontier(meeting)) {
    line(r);
    const bool answer = cheapest && configuration(r, pool) == configuration(*cheapest, pool);
    out << (answer ? " (the answer)" : "") << "\n";
  }
  if (meeting.empty()) out << "  none\n";
  bool told = false;
  for (const sim::ComparisonRow& r : sim::time_money_frontier(evaluated)) {
    if (sim::meets(question, r)) continue;
    if (!told) out << "beyond the target (sooner or cheaper on average, on target in too few replicas):\n";
    told = true;
    line(r);
    out << ", on target in " << std::lround(100 * *r.deadline_met) << "%\n";
  }
  out << "(the cheapest of " << chosen_among << ")\n";
}

// The cheapest of a count search's configurations, beside its fewest, and its frontier.
void print_cheapest_of_counts(const sim::CapacityQuestion& question, const sim::CapacityAnswer& answer,
                              const std::string& pool, std::ostream& out) {
  const std::optional<sim::ComparisonRow> cheapest = sim::cheapest_meeting(question, answer.evaluated.rows);
  if (cheapest) print_cheapest(question, *cheapest, answer.best, pool, out);
  print_frontier(question, answer.evaluated.rows, cheapest ? &*cheapest : nullptr, pool,
                 "the counts the search evaluated: the fewest meeting the target and the curve's", out);
}

nlohmann::json cheapest_json(const sim::CapacityQuestion& question, const std::vector<sim::ComparisonRow>& evaluated) {
  nlohmann::json out;
  const std::optional<sim::ComparisonRow> cheapest = sim::cheapest_meeting(question, evaluated);
  out["cheapest"] = cheapest ? sim::to_json(sim::Comparison{{*cheapest}})["rows"][0] : nlohmann::json(nullptr);
  if (cheapest) {
    if (const std::optional<sim::SpotRisk> risk = sim::spot_risk(question, *cheapest)) {
      out["spot_risk"] = {{"met_with_interruptions", risk->with_interruptions},
                          {"met_without_interruptions", risk->without_interruptions}};
    }
  }
  out["frontier"] = sim::to_json(sim::Comparison{sim::time_money_frontier(evaluated)})["rows"];
  const std::vector<sim::ComparisonRow> meeting = meeting_target(question, evaluated);
  out["frontier_meeting"] = sim::to_json(sim::Comparison{sim::time_money_frontier(meeting)})["rows"];
  return out;
}

// The plan's answer (fewest workers) searched again with `seeds` seeds from question's own: min,
// median and max of the answers, and how many seeds met the target at all. The replicas of one
// search share their draws across counts (common random numbers), so one seed's answer hides how
// much it owes to those draws; other seeds show it. Costs `seeds` searches.
std::string seed_spread_text(sim::CapacityQuestion question, int seeds) {
  std::vector<int> answers;
  question.evaluating = nullptr;
  question.spec.progress = nullptr;
  const std::uint64_t first = question.spec.seed;
  for (int i = 0; i < seeds; ++i) {
    question.spec.seed = first + static_cast<std::uint64_t>(i);
    const sim::CapacityAnswer answer = sim::plan_capacity(question);
    if (answer.best) answers.push_back(answer.best->workers);
  }
  std::sort(answers.begin(), answers.end());
  std::string text = "answer over " + std::to_string(seeds) + " seeds (" + std::to_string(first) + " to " +
                     std::to_string(first + static_cast<std::uint64_t>(seeds) - 1) + "): ";
  if (answers.empty()) return text + "none met the target\n";
  text += "min " + std::to_string(answers.front()) + ", median " + std::to_string(answers[(answers.size() - 1) / 2]) +
          ", max " + std::to_string(answers.back()) + " workers";
  if (answers.size() < static_cast<std::size_t>(seeds)) {
    text += " (" + std::to_string(seeds - static_cast<int>(answers.size())) + " seeds missed it even at the largest count)";
  }
  return text + "\n";
}

// The target's options as given, for errors: "--deadline 4h --wait-p90 1800s".
std::string target_options(const PlanOptions& o) {
  std::string text;
  auto add = [&](const char* option, data::Micros value) {
    if (value >= 0) text += (text.empty() ? "" : " ") + std::string(option) + " " + data::typed_duration_text(value);
  };
  if (o.deadline > 0) add("--deadline", o.deadline);
  add("--wait-p50", o.wait_p50);
  add("--wait-p90", o.wait_p90);
  add("--wait-p99", o.wait_p99);
  return text.empty() ? "--deadline" : text;
}

void print_worker_curve(const sim::CapacityAnswer& answer, std::ostream& out) {
  data::Micros largest = 0;
  for (const sim::ComparisonRow& r : answer.curve) largest = std::max(largest, r.makespan_max);
  const data::DisplayUnit unit = data::display_unit(largest);
  char line[200];
  const bool priced = !answer.curve.empty() && answer.curve.front().cost;
  std::snprintf(line, sizeof line, "%7s  %-14s %6s %10s %10s %10s %10s %10s %8s%s\n", "workers", "best partitioner",
                "ranges", "mean", "p50", "p90", "max", "slot-h", "met", priced ? "  cost mean / p90" : "");
  out << "cost curve (best partitioner per worker count; times in " << unit.name
      << "; makespan over the replicas, each drawing the ranges' durations from the model's noise unless --noise "
         "off):\n"
      << line;
  for (const sim::ComparisonRow& r : answer.curve) {
    std::snprintf(line, sizeof line, "%7d  %-14s %6zu %10.3f %10.3f %10.3f %10.3f %10s %7.0f%%", r.workers,
                  r.partitioner.c_str(), r.ranges, unit.of(r.makespan_mean), unit.of(r.makespan_p50),
                  unit.of(r.makespan_p90), unit.of(r.makespan_max), data::readable_number(r.node_hours).c_str(),
                  100 * *r.deadline_met);
    out << line << cost_cell(r) << "\n";
  }
  out << (answer.monotone ? "more workers never lengthened the best mean makespan over these counts\n"
                           : "the best mean makespan is longer at some count than at a smaller one: another candidate, "
                             "or other draws, was best there (each candidate's own share below)\n");
}

// Each candidate's share of replicas on target at the curve's counts ("-": its own search did
// not ask that count). The curve takes the best candidate per count, so its `met` jumps where
// the best changes; here each candidate's own share shows why.
void print_candidate_shares(const sim::CapacityAnswer& answer, std::ostream& out) {
  std::set<std::string> orders;
  for (const sim::ComparisonRow& r : answer.evaluated.rows) orders.insert(r.order);
  const auto name_of = [&orders](const sim::ComparisonRow& r) {
    return orders.size() > 1 ? r.partitioner + "/" + r.order : r.partitioner;
  };
  std::vector<std::string> candidates;
  for (const sim::ComparisonRow& r : answer.evaluated.rows) {
    const std::string name = name_of(r);
    if (std::find(candidates.begin(), candidates.end(), name) == candidates.end()) candidates.push_back(name);
  }
  if (candidates.size() < 2) return;
  out << "share of replicas on target, per candidate (the curve takes the best at each count):\n";
  char cell[64];
  std::snprintf(cell, sizeof cell, "%7s", "workers");
  out << cell;
  for (const std::string& c : candidates) {
    std::snprintf(cell, sizeof cell, "  %*s", static_cast<int>(std::max<std::size_t>(c.size(), 4)), c.c_str());
    out << cell;
  }
  out << "\n";
  for (const sim::ComparisonRow& point : answer.curve) {
    std::snprintf(cell, sizeof cell, "%7d", point.workers);
    out << cell;
    for (const std::string& c : candidates) {
      std::string share = "-";
      for (const sim::ComparisonRow& r : answer.evaluated.rows) {
        if (r.workers == point.workers && name_of(r) == c && r.deadline_met) {
          share = std::to_string(static_cast<int>(std::lround(100 * *r.deadline_met))) + "%";
        }
      }
      std::snprintf(cell, sizeof cell, "  %*s", static_cast<int>(std::max<std::size_t>(c.size(), 4)), share.c_str());
      out << cell;
    }
    out << "\n";
  }
}

// The plan's answer, its first line: "143 workers meet 24h in 90% of 20 replicas (asked: 90%):
// cost-balanced, 3,396 ranges, median makespan 23.51 h (p10-p90 22.90-24.10 h), 4,727 slot-hours
// held, cost ... for 143 workers up from the run's start to its end" (the slots are held while an
// attempt runs; the workers are billed for the whole run: the two figures differ).
std::string worker_answer(const sim::ComparisonRow& b, const PlanOptions& o) {
  return data::counted(b.workers, "worker") + " meet " + data::typed_duration_text(o.deadline) + " in " +
         std::to_string(static_cast<int>(std::lround(100 * *b.deadline_met))) + "% of " +
         data::counted(b.replicas, "replica") + " (asked: " + std::to_string(static_cast<int>(std::lround(100 * o.confidence))) +
         "%): " + b.partitioner + " in " + b.order + " order, " + data::counted(static_cast<std::int64_t>(b.ranges), "range") +
         (b.replicas > 1 ? ", median makespan " + data::readable_duration(b.makespan_p50) + " (p10-p90 " +
                               data::readable_band(b.makespan_p10, b.makespan_p90) + "), mean " +
                               data::readable_duration(b.makespan_mean)
                         : ", makespan " + data::readable_duration(b.makespan_p50)) +
         ", " + data::node_time(b.node_hours, "slot") + " held" + cost_part(b) +
         (b.cost ? " for " + data::counted(b.workers, "worker") + " up from the run's start to its end" : "") + "\n";
}

void print_node_curve(const sim::CapacityAnswer& answer, const std::string& pool, std::ostream& out) {
  data::Micros largest = 0;
  for (const sim::ComparisonRow& r : answer.curve) largest = std::max({largest, r.makespan_max, r.wait_p99});
  const data::DisplayUnit unit = data::display_unit(largest);
  char line[200];
  const bool priced = !answer.curve.empty() && answer.curve.front().cost;
  std::snprintf(line, sizeof line, "%6s %10s %10s %10s %10s %10s %10s %10s %8s%s\n", "nodes", "mean", "p90", "max",
                "wait-p50", "wait-p90", "wait-p99", "node-h", "met", priced ? "  cost mean / p90" : "");
  out << "cost curve (nodes of pool '" << pool << "'; times in " << unit.name
      << "; makespan over the replicas, waits submit -> start as means over the replicas):\n"
      << line;
  for (const sim::ComparisonRow& r : answer.curve) {
    std::snprintf(line, sizeof line, "%6d %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10s %7.0f%%", r.nodes,
                  unit.of(r.makespan_mean), unit.of(r.makespan_p90), unit.of(r.makespan_max), unit.of(r.wait_p50),
                  unit.of(r.wait_p90), unit.of(r.wait_p99), data::readable_number(r.node_hours).c_str(),
                  100 * *r.deadline_met);
    out << line << cost_cell(r) << "\n";
  }
  out << "mean makespan and wait p90 " << (answer.monotone ? "never rose" : "ROSE somewhere")
      << " with more nodes over the evaluated counts\n";
}

// The node search's answer, its first line: "4 nodes of pool 'standard' meet makespan <= 4.00 h
// in 100% of 5 replicas (asked: 90%; searched 1 to 64 nodes): mean makespan ...".
std::string node_answer(const sim::ComparisonRow& b, const PlanOptions& o, const std::string& pool,
                        const std::string& target) {
  return data::counted(b.nodes, "node") + " of pool '" + pool + "' meet " + target + " in " +
         std::to_string(static_cast<int>(std::lround(100 * *b.deadline_met))) + "% of " +
         data::counted(b.replicas, "replica") + " (asked: " +
         std::to_string(static_cast<int>(std::lround(100 * o.confidence))) + "%; searched " +
         std::to_string(o.min_nodes) + " to " + data::counted(o.max_nodes, "node") + "): mean makespan " +
         data::readable_duration(b.makespan_mean) + ", p90 " + data::readable_duration(b.makespan_p90) +
         ", wait p50/p90/p99 " + data::readable_duration(b.wait_p50) + " / " + data::readable_duration(b.wait_p90) +
         " / " + data::readable_duration(b.wait_p99) + ", " + data::node_time(b.node_hours) + cost_part(b) + "\n";
}

void print_caps(const sim::CapAnswer& caps, std::ostream& out) {
  std::vector<const sim::CapFinding*> findings{&caps.total};
  for (const sim::CapFinding& f : caps.types) findings.push_back(&f);
  data::Micros largest = caps.uncapped.makespan_max;
  for (const sim::CapFinding* f : findings) {
    for (const sim::CapPoint& p : f->curve) largest = std::max({largest, p.row.makespan_mean, p.row.wait_p90});
  }
  const data::DisplayUnit unit = data::display_unit(largest);
  char line[200];
  out << "caps on " << caps.nodes << " nodes (uncapped: mean makespan " << data::duration_text(caps.uncapped.makespan_mean)
      << ", wait p90 " << data::duration_text(caps.uncapped.wait_p90)
      << "); fewest meeting: the smallest cap still on target (types in name order, each with the ones before at "
         "theirs); saturating: beyond it mean makespan and wait p90 stay within noise of no cap\n";
  std::snprintf(line, sizeof line, "%-16s %7s %15s %11s %9s\n", "type", "items", "fewest meeting", "saturating",
                "monotone");
  out << line;
  auto row = [&](const sim::CapFinding& f) {
    const std::string fewest = f.fewest_meeting ? std::to_string(*f.fewest_meeting) : "not met";
    std::snprintf(line, sizeof line, "%-16s %7d %15s %11d %9s\n", f.type.empty() ? "(total)" : f.type.c_str(),
                  f.items, fewest.c_str(), f.saturating, f.monotone ? "yes" : "NO");
    out << line;
  };
  for (const sim::CapFinding& f : caps.types) row(f);
  row(caps.total);
  out << "saturation curves (the others uncapped; times in " << unit.name
      << "; caps past twice the saturating one but the largest left out, --json has them all):\n";
  std::snprintf(line, sizeof line, "%-16s %7s %10s %10s %10s\n", "type", "cap", "mean", "wait-p90", "node-h");
  out << line;
  auto curve = [&](const sim::CapFinding& f) {
    for (const sim::CapPoint& p : f.curve) {
      if (p.cap > 2 * f.saturating && &p != &f.curve.back()) continue;
      std::snprintf(line, sizeof line, "%-16s %7d %10.3f %10.3f %10s\n", f.type.empty() ? "(total)" : f.type.c_str(),
                    p.cap, unit.of(p.row.makespan_mean), unit.of(p.row.wait_p90),
                    data::readable_number(p.row.node_hours).c_str());
      out << line;
    }
  };
  for (const sim::CapFinding& f : caps.types) curve(f);
  curve(caps.total);
}

nlohmann::json to_json(const sim::CapFinding& f) {
  nlohmann::json curve = nlohmann::json::array();
  for (const sim::CapPoint& p : f.curve) {
    curve.push_back({{"cap", p.cap},
                     {"makespan_mean_us", p.row.makespan_mean},
                     {"wait_p90_us", p.row.wait_p90},
                     {"node_hours", p.row.node_hours}});
  }
  nlohmann::json out{{"items", f.items}, {"saturating", f.saturating}, {"monotone", f.monotone}, {"curve", curve}};
  out["fewest_meeting"] = f.fewest_meeting ? nlohmann::json(*f.fewest_meeting) : nlohmann::json(nullptr);
  if (!f.type.empty()) out["type"] = f.type;
  return out;
}

sim::CapacityQuestion question_of(const PlanOptions& o, sim::ComparisonSpec spec) {
  sim::CapacityQuestion q;
  q.spec = std::move(spec);
  q.deadline = o.deadline;
  if (o.wait_p50 >= 0) q.waits.p50 = o.wait_p50;
  if (o.wait_p90 >= 0) q.waits.p90 = o.wait_p90;
  if (o.wait_p99 >= 0) q.waits.p99 = o.wait_p99;
  q.confidence = o.confidence;
  q.min_workers = o.min_workers;
  q.max_workers = o.max_workers;
  q.min_nodes = o.min_nodes;
  q.max_nodes = o.max_nodes;
  return q;
}

// The target's limits in microseconds: deadline_us (0: none) and each wait percentile asked.
nlohmann::json target_limits(const sim::CapacityQuestion& q) {
  nlohmann::json limits{{"deadline_us", q.deadline}};
  for (const auto& [key, target] : {std::pair{"wait_p50_us", q.waits.p50}, {"wait_p90_us", q.waits.p90},
                                    {"wait_p99_us", q.waits.p99}}) {
    if (target) limits[key] = *target;
  }
  return limits;
}

nlohmann::json plan_parameters(const PlanOptions& o, const sim::CapacityQuestion& q, const std::string& model_sha256) {
  nlohmann::json parameters = parameters_of(o.common, model_sha256);
  parameters["replicas"] = q.spec.replicas;
  parameters.update(resource_parameters(o.common.resources));
  parameters.update(target_limits(q));
  parameters["confidence"] = o.confidence;
  parameters["partition"] = partition_settings(q.spec.partition);
  return parameters;
}

// The search's simulations drawn on `progress`, labelled with the count under evaluation
// ("worker count 3 (48)": the third count evaluated, 48).
void show_progress(ProgressDisplay& progress, sim::CapacityQuestion& question, const std::string& counted) {
  question.spec.progress = progress.report("plan", "simulations");
  question.evaluating = [&progress, counted, evaluated = 0](int count) mutable {
    progress.relabel("plan, " + counted + " " + std::to_string(++evaluated) + " (" + std::to_string(count) + ")");
  };
}

// Where `row` is among the rows stored (from 0): the one of its partitioner, count and order.
std::int64_t row_position(const sim::Comparison& evaluated, const sim::ComparisonRow& row) {
  for (std::size_t i = 0; i < evaluated.rows.size(); ++i) {
    const sim::ComparisonRow& r = evaluated.rows[i];
    if (r.partitioner == row.partitioner && r.workers == row.workers && r.order == row.order && r.nodes == row.nodes) {
      return static_cast<std::int64_t>(i);
    }
  }
  throw data::Error("plan", "its answer is not among the rows it evaluated (a defect: please report it)");
}

void run_worker_plan(PlanOptions& o, const CLI::App& command) {
  if (o.max_workers == 0) throw data::Error("--max-workers", "required: the largest worker count searched");
  if (o.max_nodes > 0) throw data::Error("--max-nodes", "searching nodes needs --node-pools or --machine (and --run)");
  check_fan_out(o.sweep, command, o.common.store);
  data::TraceStore store = comparison_store(o.common);
  const DigestedModel read = comparison_model(o.common, store);
  const data::CostModel& model = read.model;
  sim::CapacityQuestion question = question_of(o, comparison_spec(o.common, store, &model));
  const QueueOrderChoice order = queue_order_choice(o.common, question.spec.recorded_items);
  if (o.minimize == "cost") sim::require_priced(question);
  // The wanted makespan is also autoscale's deadline (--policy autoscale), as in simulate and run.
  question.spec.base.scheduler.params.deadline = o.deadline;
  fan_out(o.sweep, command, o.common.store, question.spec);
  // Counts run side by side (sim/sweep_pool.h), each holding its partitions while in progress.
  const std::size_t at_once = sim::SweepPool::most_in_progress(question.spec.thread_count());
  require_memory_for(question.spec, std::vector<int>(at_once, o.max_workers));
  CurrentStep step("planning workers from " + std::to_string(o.min_workers) + " to " + std::to_string(o.max_workers) +
                   " for " + std::to_string(question.spec.span.count) + " units");
  ProgressDisplay progress(o.common.quiet);
  show_progress(progress, question, "worker count");
  const sim::CapacityAnswer answer = sim::plan_capacity(question);
  const std::string spread = o.seed_spread > 0 ? seed_spread_text(question, o.seed_spread) : "";
  progress.finish();
  std::cerr << sim::survival_warnings(sim::survival_risks(answer.evaluated));
  std::int64_t stored = 0;
  if (!o.common.no_record) {
    nlohmann::json parameters = plan_parameters(o, question, read.sha256);
    parameters["min_workers"] = o.min_workers;
    parameters["max_workers"] = o.max_workers;
    if (answer.best) {
      parameters["answer_workers"] = answer.best->workers;
      parameters["answer_row"] = row_position(answer.evaluated, *answer.best);
    }
    stored = sim::record_comparison(
        store, {"plan", model_label(o.common), question.spec.span, parameters, o.common.experiment}, answer.evaluated);
  }
  if (o.common.json) {
    nlohmann::json out{{"deadline_us", question.deadline}, {"confidence", o.confidence}};
    out["curve"] = sim::to_json(sim::Comparison{answer.curve})["rows"];
    out["monotone"] = answer.monotone;
    out["queue_order"] = {{"orders", order.orders}, {"why", order.why}};
    out["cluster_source"] = question.spec.cluster_source;
    if (!spread.empty()) out["seed_spread"] = spread.substr(0, spread.size() - 1);
    if (o.minimize == "cost") out.update(cheapest_json(question, answer.evaluated.rows));
    if (answer.best) out["answer"] = sim::to_json(sim::Comparison{{*answer.best}})["rows"][0];
    out["by_candidate"] = nlohmann::json::array();
    for (const sim::CandidateFewest& c : answer.by_candidate) {
      out["by_candidate"].push_back({{"partitioner", c.partitioner}, {"order", c.order}, {"workers", c.count}});
    }
    if (stored != 0) out["stored_comparison"] = stored;
    std::cout << out.dump(2) << "\n";
  } else {
    if (o.minimize == "cost") print_cheapest_of_counts(question, answer, "", std::cout);
    if (answer.best) {
      std::cout << worker_answer(*answer.best, o) << spread
                << extrapolated_ranges(o.common, question.spec, *answer.best, model.units(), "the answer's ranges") << "\n";
    }
    std::cout << "queue order: " << order.orders << " (" << order.why << ")\n";
    std::cout << question.spec.cluster_source << "\n";
    print_worker_curve(answer, std::cout);
    print_candidate_shares(answer, std::cout);
    if (!answer.by_candidate.empty()) {
      std::cout << "each candidate's own fewest (its own search):";
      for (const sim::CandidateFewest& c : answer.by_candidate) {
        std::cout << " " << c.partitioner << "/" << c.order << " " << c.count;
      }
      std::cout << "\n";
    }
    if (stored != 0) std::cout << "stored as comparison " << stored << " in " << o.common.store << "\n";
  }
  const sim::ComparisonRow& at_max = answer.best_at_max;
  if (!answer.best) {
    throw data::Error(target_options(o),
                      "not met with confidence " + std::to_string(o.confidence) + " even with " +
                          std::to_string(o.max_workers) + " workers (best there: " + at_max.partitioner + ", mean " +
                          data::readable_duration(at_max.makespan_mean) + ", " +
                          std::to_string(static_cast<int>(100 * *at_max.deadline_met)) +
                          "% of replicas on target)");
  }
}

// "standard, cheap": the pools' names.
std::string pool_names(const std::vector<sim::NodePool>& pools) {
  std::string names;
  for (const sim::NodePool& pool : pools) names += (names.empty() ? "" : ", ") + pool.name;
  return names;
}

// The pool named `name` in --node-pools.
std::size_t pool_named(const std::string& name, const std::vector<sim::NodePool>& pools) {
  for (std::size_t p = 0; p < pools.size(); ++p) {
    if (pools[p].name == name) return p;
  }
  throw data::Error("--pool " + name, "no such pool in --node-pools (it has " + pool_names(pools) + ")");
}

// The pools whose sizes are searched: those --pool names, else the only one, else, minimizing
// cost, every pool (a mix).
std::vector<std::size_t> searched_pools(const PlanOptions& o, const std::vector<sim::NodePool>& pools) {
  std::vector<std::size_t> searched;
  for (const std::string& name : o.pools) searched.push_back(pool_named(name, pools));
  if (searched.empty() && pools.size() == 1) searched.push_back(0);
  if (searched.empty() && o.minimize == "cost") {
    for (std::size_t p = 0; p < pools.size(); ++p) searched.push_back(p);
  }
  if (searched.empty()) {
    throw data::Error("--pool", "--node-pools has several pools (" + pool_names(pools) +
                                    "): name the one whose size is searched, or give --minimize cost for their "
                                    "cheapest mix");
  }
  if (searched.size() > 1 && o.minimize != "cost") {
    throw data::Error("--pool", "several pools are searched as a mix for the cheapest: add --minimize cost, or name one");
  }
  return searched;
}

// The node counts a mix search simulates, about (sim/pool_mix.h): g grid pools, each alone, then
// the grid's points, each with the filler's search.
double mix_counts(std::size_t pools, int max_nodes) {
  const double m = std::floor(std::log2(std::max(1, max_nodes)));
  const double grid_pools = static_cast<double>(pools) - 1;
  return grid_pools * (2 * m + 2) + std::pow(m + 3, grid_pools) * (2 * m + 3);
}

// "3 spot nodes of pool 'cheap' and 1 on-demand node of pool 'standard' ..." (the cheapest
// mix), why not spot, the frontier, then each grid point's fewest filler nodes.
void print_mix(const sim::CapacityQuestion& question, const sim::MixAnswer& mix, const sim::ComparisonRow* cheapest,
               std::ostream& out) {
  const std::vector<sim::NodePool>& pools = question.spec.base.cluster.pools.pools;
  const std::string filler = pools[mix.pools[mix.filler]].name;
  if (cheapest) {
    print_cheapest(question, *cheapest, mix.fewest, "", out);
    for (const sim::WhyNotSpot& why : sim::why_not_spot(question, mix, *cheapest)) {
      out << "why not spot: " << sim::why_not_spot_text(question, why, *cheapest) << "\n";
    }
  }
  std::string grid_pools;
  for (std::size_t position = 0; position < mix.pools.size(); ++position) {
    if (position != mix.filler) grid_pools += (grid_pools.empty() ? "'" : " and '") + pools[mix.pools[position]].name + "'";
  }
  print_frontier(question, mix.evaluated, cheapest, "",
                 "the " + data::counted(static_cast<std::int64_t>(mix.evaluated.size()), "mix", "mixes") +
                     " evaluated: pool " + grid_pools + " at 0, the powers of two to " +
                     std::to_string(question.max_nodes) + " and its fewest alone, each beside the fewest nodes of " +
                     "pool '" + filler + "' meeting the target (binary search) and its curve; counts between those " +
                     "are not tried, and no caps are searched for a mix",
                 out);
  data::Micros largest = 0;
  for (const sim::MixGridPoint& point : mix.grid) largest = std::max(largest, point.fewest ? point.fewest->makespan_max : 0);
  const data::DisplayUnit unit = data::display_unit(largest);
  out << "the fewest of pool '" << filler << "' beside each grid count (times in " << unit.name << "):\n";
  char cell[64];
  for (const std::size_t pool : mix.pools) {
    std::snprintf(cell, sizeof cell, "%10s ", pools[pool].name.c_str());
    out << cell;
  }
  std::snprintf(cell, sizeof cell, "%10s %10s %8s", "mean", "p90", "met");
  out << cell << "  cost mean / p90\n";
  for (const sim::MixGridPoint& point : mix.grid) {
    for (std::size_t position = 0; position < mix.pools.size(); ++position) {
      const bool searched = position == mix.filler;
      const std::string count = !searched ? std::to_string(point.counts[position])
                                : point.fewest ? std::to_string(point.fewest->mix[position].nodes)
                                               : "not met";
      std::snprintf(cell, sizeof cell, "%10s ", count.c_str());
      out << cell;
    }
    if (const std::optional<sim::ComparisonRow>& r = point.fewest) {
      std::snprintf(cell, sizeof cell, "%10.3f %10.3f %7.0f%%", unit.of(r->makespan_mean), unit.of(r->makespan_p90),
                    100 * *r->deadline_met);
      out << cell << cost_cell(*r);
    }
    out << "\n";
  }
}

nlohmann::json to_json(const sim::CapacityQuestion& question, const sim::MixAnswer& mix,
                       const std::optional<sim::ComparisonRow>& cheapest) {
  const std::vector<sim::NodePool>& pools = question.spec.base.cluster.pools.pools;
  nlohmann::json out = cheapest_json(question, mix.evaluated);
  out["pools"] = nlohmann::json::array();
  for (std::size_t pool : mix.pools) out["pools"].push_back(pools[pool].name);
  out["filler"] = pools[mix.pools[mix.filler]].name;
  out["mixes_evaluated"] = sim::to_json(sim::Comparison{mix.evaluated})["rows"];
  if (mix.fewest) out["answer"] = sim::to_json(sim::Comparison{{*mix.fewest}})["rows"][0];
  out["why_not_spot"] = nullptr;
  if (cheapest) {
    for (const sim::WhyNotSpot& why : sim::why_not_spot(question, mix, *cheapest)) {
      out["why_not_spot"].push_back(
          {{"pool", why.pool},
           {"interruption_rate", why.interruption_rate},
           {"lifetime", why.lifetime.empty() ? nlohmann::json(nullptr) : nlohmann::json(why.lifetime)},
           {"alone", sim::to_json(sim::Comparison{{why.alone}})["rows"][0]},
           {"cheapest_with_spot", why.cheapest_with_spot
                                      ? sim::to_json(sim::Comparison{{*why.cheapest_with_spot}})["rows"][0]
                                      : nlohmann::json(nullptr)},
           {"text", sim::why_not_spot_text(question, why, *cheapest)}});
    }
  }
  out["grid"] = nlohmann::json::array();
  for (const sim::MixGridPoint& point : mix.grid) {
    nlohmann::json counts;
    for (std::size_t position = 0; position < mix.pools.size(); ++position) {
      if (position != mix.filler) counts[pools[mix.pools[position]].name] = point.counts[position];
    }
    out["grid"].push_back({{"counts", counts},
                           {"fewest", point.fewest ? sim::to_json(sim::Comparison{{*point.fewest}})["rows"][0]
                                                   : nlohmann::json(nullptr)}});
  }
  return out;
}

// The cheapest mix of the pools `searched` (sim/pool_mix.h).
void run_mix_plan(const PlanOptions& o, data::TraceStore& store, sim::CapacityQuestion question,
                  const std::vector<std::size_t>& searched) {
  const std::vector<sim::NodePool>& pools = question.spec.base.cluster.pools.pools;
  sim::require_priced(question);
  std::string names;
  for (std::size_t pool : searched) names += (names.empty() ? "'" : ", '") + pools[pool].name + "'";
  const double counts = mix_counts(searched.size(), o.max_nodes);
  require_memory_for_replicas(counts, question.spec.replicas,
                              "about " + std::to_string(static_cast<int>(counts)) + " mixes of pools " + names);
  CurrentStep step("planning a mix of pools " + names + ", 0 to " + std::to_string(o.max_nodes) + " nodes each, for " +
                   std::to_string(question.spec.recorded_items->size()) + " items");
  ProgressDisplay progress(o.common.quiet);
  show_progress(progress, question, "node count");
  const sim::MixAnswer mix = sim::plan_mix(question, searched);
  progress.finish();
  const std::optional<sim::ComparisonRow> cheapest = sim::cheapest_meeting(question, mix.evaluated);
  std::int64_t stored = 0;
  if (!o.common.no_record) {
    nlohmann::json parameters = plan_parameters(o, question, "");
    parameters["pools"] = nlohmann::json::array();
    for (std::size_t pool : searched) parameters["pools"].push_back(pools[pool].name);
    parameters["max_nodes"] = o.max_nodes;
    nlohmann::json mix_by_row = nlohmann::json::array();
    for (const sim::ComparisonRow& row : mix.evaluated) {
      mix_by_row.push_back(nlohmann::json::array());
      for (const sim::MixPart& part : row.mix) mix_by_row.back().push_back(part.nodes);
    }
    parameters["mix_by_row"] = mix_by_row;
    if (cheapest) {
      parameters["answer_mix"] = nlohmann::json::array();
      for (const sim::MixPart& part : cheapest->mix) parameters["answer_mix"].push_back(part.nodes);
    }
    stored = sim::record_comparison(store, {"plan", "", question.spec.span, parameters, o.common.experiment},
                                    sim::Comparison{mix.evaluated});
  }
  if (o.common.json) {
    nlohmann::json out{{"target", sim::target_text(question)}, {"confidence", o.confidence}, {"max_nodes", o.max_nodes}};
    out.update(target_limits(question));
    out.update(to_json(question, mix, cheapest));
    if (stored != 0) out["stored_comparison"] = stored;
    std::cout << out.dump(2) << "\n";
  } else {
    print_mix(question, mix, cheapest ? &*cheapest : nullptr, std::cout);
    if (stored != 0) std::cout << "stored as comparison " << stored << " in " << o.common.store << "\n";
  }
  if (!cheapest) {
    throw data::Error(target_options(o), "not met with confidence " + std::to_string(o.confidence) +
                                             " by any mix evaluated of pools " + names + ", up to " +
                                             std::to_string(o.max_nodes) + " nodes each");
  }
}

void run_node_plan(PlanOptions o, const CLI::App& command) {
  const std::string searched = o.common.resources.machine.empty() ? "--node-pools" : "--machine";
  if (o.common.run.empty()) {
    throw data::Error(searched, "a node search replays a recorded run (its items' requests, types and submit times): "
                                "give --run");
  }
  if (!o.common.model_path.empty()) {
    throw data::Error("--model " + o.common.model_path, "a node search replays --run as recorded: it takes no cost model");
  }
  if (!o.common.fit_runs.empty()) {
    throw data::Error("--fit-runs " + o.common.fit_runs, "a node search replays --run as recorded: it fits no cost model");
  }
  if (o.max_workers > 0) throw data::Error("--max-workers", "a node search searches nodes: give --max-nodes");
  if (o.max_nodes == 0) throw data::Error("--max-nodes", "required with " + searched + ": the largest node count searched");
  ImpliedOptions implied;
  if (!o.policy_given) {
    o.common.policy = "job-per-item";
    implied.emplace_back("--policy", o.common.policy);
  }
  check_fan_out(o.sweep, command, o.common.store);
  data::TraceStore store = comparison_store(o.common);
  sim::CapacityQuestion question = question_of(o, comparison_spec(o.common, store, nullptr));
  fan_out(o.sweep, command, o.common.store, question.spec, implied);
  const std::vector<std::size_t> pools = searched_pools(o, question.spec.base.cluster.pools.pools);
  if (pools.size() > 1) return run_mix_plan(o, store, std::move(question), pools);
  // Each count searched keeps its replicas' results: the curve's powers of two and a binary
  // search, each answer checked against the count below it (sim/capacity_plan.h), the pool's
  // nodes themselves being counted, not built.
  const double searched_counts = 2 * (std::floor(std::log2(std::max(1, o.max_nodes - o.min_nodes + 1))) + 1) + 1;
  require_memory_for_replicas(searched_counts, question.spec.replicas,
                              "about " + std::to_string(static_cast<int>(searched_counts)) + " node counts searched from " +
                                  std::to_string(o.min_nodes) + " to " + std::to_string(o.max_nodes));
  question.node_pool = pools.front();
  if (o.minimize == "cost") sim::require_priced(question);
  const std::string pool = question.spec.base.cluster.pools.pools[*question.node_pool].name;
  CurrentStep step("planning nodes of pool '" + pool + "' from " + std::to_string(o.min_nodes) + " to " +
                   std::to_string(o.max_nodes) + " for " + std::to_string(question.spec.recorded_items->size()) +
                   " items");
  ProgressDisplay progress(o.common.quiet);
  show_progress(progress, question, "node count");
  const sim::CapacityAnswer answer = sim::plan_capacity(question);
  const int nodes = answer.best ? answer.best->nodes : o.max_nodes;
  progress.relabel("plan, caps on " + std::to_string(nodes) + " nodes");
  // Fanned out, the cheapest's spot risk (its on-demand copy, asked when the answer is printed)
  // goes to the pool with the caps' first batch.
  std::optional<sim::LookaheadBatches> ahead;
  const std::optional<sim::ComparisonRow> cheapest =
      o.minimize == "cost" ? sim::cheapest_meeting(question, answer.evaluated.rows) : std::nullopt;
  if (question.spec.elsewhere && cheapest) {
    if (const std::optional<sim::ComparisonSpec> copy = sim::spot_risk_comparison(question, *cheapest)) {
      ahead.emplace(question.spec.elsewhere);
      ahead->certain({*copy});
      question.spec.elsewhere = ahead->elsewhere();
    }
  }
  const sim::CapAnswer caps = sim::find_caps(question, nodes);
  progress.finish();
  std::cerr << sim::survival_warnings(sim::survival_risks(answer.evaluated));
  std::int64_t stored = 0;
  if (!o.common.no_record) {
    nlohmann::json parameters = plan_parameters(o, question, "");
    parameters["pool"] = pool;
    parameters["min_nodes"] = o.min_nodes;
    parameters["max_nodes"] = o.max_nodes;
    nlohmann::json row_nodes = nlohmann::json::array();
    for (const sim::ComparisonRow& row : answer.evaluated.rows) row_nodes.push_back(row.nodes);
    parameters["nodes_by_row"] = row_nodes;
    if (answer.best) parameters["answer_nodes"] = answer.best->nodes;
    stored = sim::record_comparison(store, {"plan", "", question.spec.span, parameters, o.common.experiment},
                                    answer.evaluated);
  }
  if (o.common.json) {
    // "target" as it reads ("makespan <= 4h"); each limit in microseconds as the worker plan gives
    // its deadline, and the nodes searched.
    nlohmann::json out{{"target", sim::target_text(question)}, {"confidence", o.confidence}, {"pool", pool},
                       {"min_nodes", o.min_nodes}, {"max_nodes", o.max_nodes}};
    out.update(target_limits(question));
    out["curve"] = sim::to_json(sim::Comparison{answer.curve})["rows"];
    out["monotone"] = answer.monotone;
    if (answer.best) out["answer"] = sim::to_json(sim::Comparison{{*answer.best}})["rows"][0];
    if (o.minimize == "cost") out.update(cheapest_json(question, answer.evaluated.rows));
    out["caps"] = {{"nodes", caps.nodes},
                   {"uncapped", sim::to_json(sim::Comparison{{caps.uncapped}})["rows"][0]},
                   {"total", to_json(caps.total)},
                   {"types", nlohmann::json::array()}};
    for (const sim::CapFinding& f : caps.types) out["caps"]["types"].push_back(to_json(f));
    if (stored != 0) out["stored_comparison"] = stored;
    std::cout << out.dump(2) << "\n";
  } else {
    if (o.minimize == "cost") print_cheapest_of_counts(question, answer, pool, std::cout);
    if (answer.best) std::cout << node_answer(*answer.best, o, pool, sim::target_text(question)) << "\n";
    print_node_curve(answer, pool, std::cout);
    print_caps(caps, std::cout);
    if (stored != 0) std::cout << "stored as comparison " << stored << " in " << o.common.store << "\n";
  }
  if (!answer.best) {
    const sim::ComparisonRow& at_max = answer.best_at_max;
    throw data::Error(target_options(o),
                      "not met with confidence " + std::to_string(o.confidence) + " even with " +
                          std::to_string(o.max_nodes) + " nodes of pool '" + pool + "' (there: mean makespan " +
                          data::duration_text(at_max.makespan_mean) + ", wait p90 " + data::duration_text(at_max.wait_p90) + ", " +
                          std::to_string(static_cast<int>(100 * *at_max.deadline_met)) + "% of replicas on target)");
  }
}

void run_plan(PlanOptions& o, const CLI::App& command) {
  const ResourceOptions& r = o.common.resources;
  if (r.node_pools.empty() && r.machine.empty()) return run_worker_plan(o, command);
  run_node_plan(o, command);
}

}  // namespace

void add_plan_command(CLI::App& app) {
  auto options = std::make_shared<PlanOptions>();
  CLI::App* cmd = app.add_subcommand(
      "plan", "Fewest workers (and partition), or with --node-pools/--machine fewest nodes and caps, meeting a target");
  add_comparison_options(cmd, options->common);
  cmd->get_option("--model")->required(false);
  cmd->get_option("--policy")
      ->description("Concurrency policy (default: fixed-pool; job-per-item in a node search)")
      ->each([options](const std::string&) { options->policy_given = true; });
  cmd->add_option("--deadline", options->deadline, "Wanted makespan (e.g. 24h); autoscale's deadline too")
      ->transform(micros());
  for (auto [name, target] : {std::pair{"--wait-p50", &options->wait_p50}, {"--wait-p90", &options->wait_p90},
                              {"--wait-p99", &options->wait_p99}}) {
    cmd->add_option(name, *target,
                    std::string("Wanted ceiling of the items' queue wait (submit -> start) at ") + (name + 7) +
                        ", e.g. 30m; with or instead of --deadline")
        ->transform(micros());
  }
  cmd->add_option("--confidence", options->confidence, "Fraction of replicas that must meet the target")
      ->capture_default_str()
      ->transform(real_number(0, 1));
  cmd->add_option("--seed-spread", options->seed_spread,
                  "Workers: search again with this many seeds (--seed, --seed + 1, ...) and print the answers' "
                  "min, median and max (costs as many searches)")
      ->transform(whole_number(0, 1000));
  cmd->add_option("--min-workers", options->min_workers, "Smallest worker count searched")
      ->capture_default_str()
      ->transform(whole_number(1));
  cmd->add_option("--max-workers", options->max_workers, "Largest worker count searched (required without a node search)")
      ->transform(whole_number(1));
  cmd->add_option("--min-nodes", options->min_nodes, "Node search: smallest node count searched")
      ->capture_default_str()
      ->transform(whole_number(1));
  cmd->add_option("--max-nodes", options->max_nodes, "Node search (--node-pools or --machine): largest node count searched")
      ->transform(whole_number(1));
  cmd->add_option("--minimize", options->minimize,
                  "workers: the fewest meeting the target; cost: the cheapest (needs prices: --worker-price, "
                  "--node-pools' price column or --machine ...,price=P)")
      ->capture_default_str()
      ->check(CLI::IsMember({"workers", "cost"}));
  cmd->add_option("--pool", options->pools,
                  "Node search: the pool of --node-pools whose size is searched (default: the only one); "
                  "repeated, with --minimize cost: the cheapest mix of those pools (default: all of them)");
  add_sweep_options(cmd, options->sweep);
  set_help_groups(*cmd, {{"The target", {"--deadline", "--wait-p50", "--wait-p90", "--wait-p99", "--confidence"}},
                         {"The search",
                          {"--minimize", "--min-workers", "--max-workers", "--min-nodes", "--max-nodes", "--pool",
                           "--seed-spread"}},
                         {kJobGroup, {}},
                         {kCandidatesGroup, {}},
                         {kModelGroup, {}},
                         {kClusterGroup, {}},
                         {kFailuresGroup, {}},
                         {kOutputGroup, {}},
                         {kFanOutGroup, {}}});
  set_help_examples(
      *cmd,
      {{"Fewest workers that finish the recorded catch-up in 24 h in 9 replicas of 10",
        "millrace plan --store out/t.db --model out/model.json --run pcv2 --deadline 24h --max-workers 512 "
        "--replicas 10 --confidence 0.9"},
       {"Fewest 4-CPU nodes for a 4 h deadline, Jobs placed by their requests",
        "millrace plan --store out/t.db --run pods --machine cpu=4,memory=16Gi --deadline 4h --max-nodes 64"},
       {"Then run what it chose (its comparison id, from `millrace runs`)",
        "millrace run --store out/runs.db --name planned --plan 1 --command 'examples/worker.sh {first} {count}'"}});
  cmd->callback([options, cmd] { run_plan(*options, *cmd); });
}

}  // namespace millrace::cli
