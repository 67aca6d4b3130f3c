// `millrace simulate`: replay a recorded run of the trace store in the simulator under a
// concurrency policy and queue order, print makespan, utilisation, node-hours, failures and the
// straggler tail next to what the recording says, and store the simulated run beside the real
// one (unless --no-record). With --model and --ranges instead of --run, simulate a ranges file
// (partitioners/ranges_file.h) with durations from the cost model.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "cli/autoscale_options.h"
#include "cli/commands.h"
#include "cli/current_step.h"
#include "cli/duration_option.h"
#include "cli/fitted_cluster.h"
#include "cli/help_layout.h"
#include "cli/memory_budget.h"
#include "cli/option_checks.h"
#include "cli/comparison_options.h"
#include "cli/partition_spec.h"
#include "cli/stored_plan.h"
#include "cli/resource_options.h"
#include "data/error.h"
#include "data/model_span.h"
#include "data/readable_duration.h"
#include "data/trace_store.h"
#include "partitioners/preset.h"
#include "partitioners/ranges_file.h"
#include "sim/duration_draws.h"
#include "scheduler/concurrency_policy.h"
#include "scheduler/retry_policy.h"
#include "sim/comparison.h"
#include "sim/comparison_store.h"
#include "sim/duration_model.h"
#include "sim/recorded_capacity.h"
#include "sim/replay.h"
#include "sim/simulation.h"

namespace millrace::cli {

namespace {

struct SimulateOptions {
  PartitionSpec partition;  // --preset, --tip, --span, --partitioner...: a partition simulated on --model
  int replicas = 0;         // of a partition; 0: sim::kBandReplicas when they differ, else 1
  std::string store;
  std::string run;
  std::string model_path;
  std::string ranges;
  std::string noise = "on";
  std::string policy = "fixed-pool";
  int workers = 64;
  scheduler::AutoscaleSettings autoscale;
  std::string order = "plan";
  std::uint64_t seed = 1;
  double fail_prob = 0;
  std::string startup_latency = "0";
  bool fail_prob_given = false;        // they replace the model file's fitted parts
  bool startup_latency_given = false;
  data::Micros create_overhead = 0;
  data::Micros delete_overhead = 0;
  int nodes = 0;
  int slots_per_node = 1;
  std::vector<std::string> node_losses;
  std::vector<std::string> api_down;
  int max_attempts = 3;
  data::Micros backoff = 0;
  bool report_exhausted = false;
  bool json = false;
  bool timeline = false;
  bool no_record = false;
  ResourceOptions resources;
};

std::string line_of(const char* key, const std::string& value) {
  char line[240];
  std::snprintf(line, sizeof line, "%-28s %s\n", key, value.c_str());
  return line;
}

// "A@B" split at '@' (node losses) or "A-B" at the first '-' after the first character (windows).
std::pair<std::string, std::string> split_pair(const std::string& text, char sep, const std::string& option) {
  std::size_t at = text.find(sep, 1);
  if (at == std::string::npos) {
    throw data::Error(option + " '" + text + "'", std::string("expected two parts separated by '") + sep + "'");
  }
  return {text.substr(0, at), text.substr(at + 1)};
}

// `cluster_text`: which cluster values come from where (cli/fitted_cluster.h).
sim::SimulationConfig config_of(const SimulateOptions& o, std::string& cluster_text) {
  sim::SimulationConfig config;
  config.seed = o.seed;
  config.record_timeline = o.timeline;
  config.keep_attempt_log = !o.no_record;  // only the stored run reads it
  config.predict_from_durations = true;
  sim::SimClusterConfig& cluster = config.cluster;
  cluster.nodes = o.nodes > 0 ? o.nodes : o.workers;
  cluster.slots_per_node = o.slots_per_node;
  cluster.fail_prob = o.fail_prob;
  cluster.startup = parse_startup_latency(o.startup_latency, "--startup-latency");
  const ClusterSource source = cluster_source(o.model_path, o.startup_latency_given, o.fail_prob_given);
  cluster.fitted = source.fitted;
  cluster_text = source.text;
  cluster.create_overhead = o.create_overhead;
  cluster.delete_overhead = o.delete_overhead;
  for (const std::string& loss : o.node_losses) {
    auto [node_text, at] = split_pair(loss, '@', "--node-loss");
    int node = -1;
    const auto [stop, error] = std::from_chars(node_text.data(), node_text.data() + node_text.size(), node);
    if (error != std::errc() || stop != node_text.data() + node_text.size() || node < 0 || node >= cluster.nodes) {
      throw data::Error("--node-loss '" + loss + "'", "expected NODE@TIME with NODE from 0 to " +
                                                          std::to_string(cluster.nodes - 1) + ", e.g. 3@2h");
    }
    cluster.node_losses.push_back(sim::NodeLoss{node, data::parse_duration(at, "--node-loss")});
  }
  for (const std::string& window : o.api_down) {
    auto [begin, end] = split_pair(window, '-', "--api-down");
    cluster.api_down.push_back(sim::Window{data::parse_duration(begin, "--api-down"), data::parse_duration(end, "--api-down")});
  }
  scheduler::SchedulerOptions& s = config.scheduler;
  s.plan_name = o.run.empty() ? o.ranges : o.store + " run " + o.run;
  s.policy = o.policy;
  s.params = scheduler::policy_params(o.workers, o.autoscale);
  s.order = scheduler::queue_order_from_string(o.order);
  s.retry.max_attempts = o.max_attempts;
  s.retry.backoff = o.backoff;
  s.on_exhausted = o.report_exhausted ? scheduler::OnExhausted::kReport : scheduler::OnExhausted::kFailRun;
  if (!o.resources.machine.empty() && o.nodes == 0) {
    throw data::Error("--machine " + o.resources.machine, "give how many such machines with --nodes N");
  }
  apply_resource_options(o.resources, config, o.nodes);
  return config;
}

nlohmann::json parameters_of(const SimulateOptions& o) {
  nlohmann::json parameters = scheduler::to_json(o.autoscale);
  parameters.update({{"policy", o.policy},
                     {"workers", o.workers},
                     {"order", o.order},
                     {"seed", o.seed},
                     {"fail_prob", o.fail_prob},
                     {"startup_latency", o.startup_latency},
                     {"create_overhead_us", o.create_overhead},
                     {"delete_overhead_us", o.delete_overhead},
                     {"nodes", o.nodes > 0 ? o.nodes : o.workers},
                     {"slots_per_node", o.slots_per_node},
                     {"node_losses", o.node_losses},
                     {"api_down", o.api_down},
                     {"max_attempts", o.max_attempts},
                     {"backoff_us", o.backoff}});
  parameters.update(resource_parameters(o.resources));
  if (!o.resources.node_pools.empty()) {
    parameters.erase("nodes");
    parameters.erase("slots_per_node");
  }
  return parameters;
}

// The recording's makespan as a replay counts it: both clocks start at the recording's time 0
// (submit times are kept), so the last ends compare. `show` counts from the first start.
data::Micros last_end(const sim::RecordedRun& recorded) {
  data::Micros end = 0;
  for (const data::Attempt& a : recorded.attempts) end = std::max(end, a.end);
  return end;
}

// The first line of a replay: "makespan 24.62 h replaying run pcv2 with fixed-pool on 192
// workers, plan order; recorded 24.62 h (-0.01%), both from the recording's time 0 to the last end".
std::string replay_answer(const sim::SimulationResult& result, const sim::RecordedRun& recorded) {
  std::string text = "makespan " + data::readable_duration(result.makespan) + " replaying run " + recorded.run.name +
                     " with " + result.policy + " on " + data::counted(result.cap, "worker") + ", " + result.order +
                     " order";
  const data::Micros recorded_end = last_end(recorded);
  if (recorded_end <= 0) return text;
  char diff[32];
  std::snprintf(diff, sizeof diff, "%+.2f%%",
                100.0 * static_cast<double>(result.makespan - recorded_end) / static_cast<double>(recorded_end));
  return text + "; recorded " + data::readable_duration(recorded_end) + " (" + diff +
         "), both from the recording's time 0 to the last end";
}

void print_recorded(const sim::RecordedRun& recorded, const data::RunSummary& s,
                    const sim::SimulationResult& result, std::ostream& out) {
  char line[240];
  const std::string workers = s.workers == 0 ? std::string("workers not recorded")
                                              : "on " + std::to_string(s.workers) + " workers";
  std::snprintf(line, sizeof line, "%-28s run %lld '%s' (%s): %zu items, %zu attempts, %s\n", "recorded",
                static_cast<long long>(recorded.run.id), recorded.run.name.c_str(),
                data::to_string(recorded.run.source), recorded.items.size(), s.attempts, workers.c_str());
  out << line;
  out << line_of("recorded busy", data::node_time(data::seconds_from_micros(s.total_work) / 3600, "worker"));
  if (s.workers > 1) out << line_of("recorded busiest worker", data::duration_text(s.busy_max));
  if (s.has_submit_times) out << line_of("recorded queue wait", data::waits_text(s.waits));
  const data::Micros recorded_end = last_end(recorded);
  out << line_of("recorded makespan (last end)", data::duration_text(recorded_end));
  if (recorded_end > 0) {
    double diff = 100.0 * static_cast<double>(result.makespan - recorded_end) / static_cast<double>(recorded_end);
    std::snprintf(line, sizeof line, "%+.2f %%", diff);
    out << line_of("simulated makespan vs it", line);
  }
}

// Peak memory of `simulate` per attempt it makes (the attempt log, the scheduler's records and
// the stored rows): 253 bytes, measured with /usr/bin/time -f %M between 4 x 10^4 and 4 x 10^5
// attempts (`--fail-prob 1 --max-attempts N` on 4 items).
constexpr double kBytesPerAttempt = 255;

// Refuses, before simulating, a cluster or an attempt log that cannot fit in memory. The attempts
// are the expected count: each attempt of an item fails with --fail-prob, up to --max-attempts.
// Node pools (--node-pools, --machine) cost what they run, not their node count: only slots are
// counted here.
void require_memory_for(const SimulateOptions& o, std::size_t items) {
  const int nodes = o.nodes > 0 ? o.nodes : o.workers;
  if (o.resources.node_pools.empty() && o.resources.machine.empty()) {
    require_memory(static_cast<double>(nodes) * o.slots_per_node, kBytesPerSimulatedSlot,
                   (o.nodes > 0 ? "--nodes " : "--workers ") + std::to_string(nodes) + " x --slots-per-node " +
                       std::to_string(o.slots_per_node),
                   "worker slots");
  }
  const double per_item = o.fail_prob >= 1 ? o.max_attempts
                                            : (1 - std::pow(o.fail_prob, o.max_attempts)) / (1 - o.fail_prob);
  char fail_prob[32];
  std::snprintf(fail_prob, sizeof fail_prob, "%g", o.fail_prob);
  require_memory(per_item * static_cast<double>(items), kBytesPerAttempt,
                 "--max-attempts " + std::to_string(o.max_attempts) + " with --fail-prob " + fail_prob,
                 "expected attempts of " + std::to_string(items) + " items");
}

// What simulating a ranges file takes of it: the work ranges in the file's order (its plan
// order), their requests (empty when none asks), the span and the overlap; for a band over
// replicas, the file as compare scores it. The file as read (a "file:line" per range among it) is
// freed here, before the simulation: at 10^6 ranges it held more memory than the simulation does.
struct ListedWork {
  std::vector<data::Range> ranges;
  std::vector<data::Quantities> requests;
  data::Range span;
  std::int64_t overlap = 0;
  std::optional<sim::ListedPartition> replicated;
};

ListedWork listed_work(const std::string& path, const data::CostModel& model, bool replicated) {
  const partitioners::RangesFile file = partitioners::read_ranges_file(path);
  partitioners::require_within_model(file, model);
  ListedWork work{file.work_ranges_in_file_order(), file.requests_in_file_order(), file.span(), file.overlap, {}};
  if (replicated) {
    work.replicated = sim::ListedPartition{std::filesystem::path(path).stem().string(), file.partition(),
                                           file.requests(), file.file_order};
  }
  return work;
}

// One candidate (a partition or a ranges file, set by the caller) on --workers in --order,
// simulated for the replicas asked, else kBandReplicas where replicas differ, else 1: what
// simulate's first line reports. `cluster_text` says where the cluster's values come from.
sim::ComparisonSpec replicated_spec(const SimulateOptions& o, const data::CostModel& model, std::string& cluster_text) {
  sim::ComparisonSpec spec;
  spec.base = config_of(o, cluster_text);
  spec.model = &model;
  spec.cluster_source = cluster_text;
  spec.workers = {o.workers};
  spec.orders = {scheduler::queue_order_from_string(o.order)};
  spec.seed = o.seed;
  spec.noise = o.noise == "on";
  spec.replicas = o.replicas > 0 ? o.replicas : spec.draws_at_random() ? sim::kBandReplicas : 1;
  return spec;
}

// The first line of a partition's simulation: its makespan, the band over the replicas and on
// what. "makespan 24.62 h (median of 20 replicas, p10-p90 24.40-24.91 h) on 192 workers, ...".
std::string makespan_answer(const sim::ComparisonRow& row, const SimulateOptions& o, bool draws_at_random) {
  std::string text = "makespan " + data::readable_duration(row.makespan_p50);
  if (row.replicas > 1) {
    text += " (median of " + std::to_string(row.replicas) + " replicas, p10-p90 " +
            data::readable_band(row.makespan_p10, row.makespan_p90) + ")";
  } else {
    text += draws_at_random ? " (1 replica: --replicas N for a band)"
                            : " (nothing drawn at random: the model's predictions, every replica alike)";
  }
  return text + " on " + data::counted(row.workers, "worker") + ", " + o.policy + ", " + row.order + " order";
}

// The line under a band's makespan when the cluster is priced: the replicas' median cost, p10-p90.
void print_cost_band(const sim::ComparisonRow& row) {
  if (row.cost) std::cout << "cost " << sim::band_text(*row.cost, row.cost->p50) << " (median of the replicas' cost)\n";
}

// A ranges file simulated with the model's durations. Where replicas differ (the model's noise,
// failures, a fitted cluster) the first line is the makespan's median and p10-p90 over the
// replicas, with their row as compare prints it; then one replica in detail (seed --seed), the
// one stored as a simulated run.
void simulate_ranges(const SimulateOptions& o) {
  if (o.model_path.empty()) throw data::Error("--ranges " + o.ranges, "simulating a ranges file needs --model");
  if (o.store.empty() && !o.no_record) {
    throw data::Error("--ranges " + o.ranges, "storing the simulated run needs --store (or --no-record)");
  }
  const data::CostModel model = data::CostModel::load(o.model_path);
  std::string cluster_text;
  sim::ComparisonSpec spec = replicated_spec(o, model, cluster_text);
  const bool replicated = spec.replicas > 1;
  ListedWork listed = listed_work(o.ranges, model, replicated);
  std::vector<data::Range> ranges = std::move(listed.ranges);
  require_memory_for(o, ranges.size());
  std::optional<sim::Comparison> band;
  if (replicated) {
    spec.span = listed.span;
    spec.listed = {std::move(*listed.replicated)};
    cli::require_memory_for(spec, spec.workers);
    CurrentStep step("simulating " + std::to_string(spec.replicas) + " replicas of " + o.ranges + " on " +
                     std::to_string(o.workers) + " workers");
    band = sim::run_comparison(spec);
    spec.listed.clear();
  }
  const std::vector<data::Micros> drawn = sim::draw_durations(model, ranges, sim::duration_seed(o.seed), o.noise == "on");
  std::vector<data::Micros> predicted;
  predicted.reserve(ranges.size());
  for (const data::Range& range : ranges) predicted.push_back(model.predict(range));
  const sim::SimulationConfig& config = spec.base;
  auto plan = std::make_shared<const scheduler::PlannedWork>(std::move(ranges), std::move(predicted),
                                                             std::exchange(listed.requests, {}),
                                                             config.scheduler.plan_name);
  const sim::SimulationResult result = sim::simulate(plan, drawn, config);
  std::vector<sim::SurvivalRisk> risks = band ? sim::survival_risks(*band) : std::vector<sim::SurvivalRisk>{};
  sim::keep_riskiest(risks, result.survival_risks);
  std::cerr << sim::survival_warnings(risks);
  std::int64_t stored = 0;
  if (!o.no_record) {
    data::TraceStore store = data::TraceStore::open(o.store);
    data::Run source;
    source.name = std::filesystem::path(o.ranges).stem().string();
    source.units = model.units();
    source.partitioner = "ranges file " + o.ranges;
    nlohmann::json parameters = parameters_of(o);
    parameters["ranges_file"] = o.ranges;
    parameters["model"] = o.model_path;
    parameters["noise"] = o.noise;
    stored = sim::record_simulation(store, source, plan->items(), result, parameters);
  }
  if (o.json) {
    nlohmann::json out = sim::to_json(result, o.timeline);
    out["span"] = {{"first", listed.span.first}, {"last", listed.span.last()}, {"overlap", listed.overlap}};
    out["cluster_source"] = cluster_text;
    if (band) out["replicas"] = sim::to_json(*band);
    if (stored != 0) out["stored_run"] = stored;
    std::cout << out.dump(2) << "\n";
    return;
  }
  const bool noisy = spec.noise && !model.noise().empty();
  const std::string file_text = o.ranges + ": " + data::counted(static_cast<std::int64_t>(plan->size()), "range") +
                                " over " + data::span_reading(listed.span, model.units()) + ", " +
                                data::grouped(listed.span.count) + " " + model.units() + ", overlap " +
                                std::to_string(listed.overlap) + "; durations from " + o.model_path;
  if (band) {
    std::cout << makespan_answer(band->rows.front(), o, true) << "\n";
    print_cost_band(band->rows.front());
    std::cout << file_text << (noisy ? " drawn with its noise" : " as predicted") << " (seed " << o.seed << ")\n";
    std::cout << cluster_text << "\n";
    sim::print_table(*band, std::cout);
    std::cout << "\none replica in detail (seed " << o.seed
              << "): makespan " << data::readable_duration(result.makespan) << "\n";
  } else {
    std::cout << "makespan " << data::readable_duration(result.makespan) << " on "
              << data::counted(result.cap, "worker") << ", " << result.policy << ", " << result.order
              << " order ("
              << (spec.draws_at_random() ? "1 replica: --replicas N for a band"
                                         : "nothing drawn at random: the model's predictions")
              << ")\n";
    if (result.cost) std::cout << "cost " << sim::cost_text(*result.cost) << "\n";
    std::cout << file_text << (noisy ? " drawn with its noise (seed " + std::to_string(o.seed) + ")" : " as predicted")
              << "\n";
    std::cout << cluster_text << "\n";
  }
  sim::print_table(result, std::cout);
  if (stored != 0) std::cout << "stored as simulated run " << stored << " in " << o.store << "\n";
}

// A partition (--preset/--tip/--span with --partitioner...) simulated on the model's durations
// for several replicas, each drawing the durations from the model's noise: its makespan band
// first, then the row as compare prints it. With --store (and not --no-record) the row is stored
// as a comparison, so `run --plan ID:1` runs it.
void simulate_partition(SimulateOptions o, const CLI::App& cmd) {
  PartitionSpec& p = o.partition;
  if (o.model_path.empty()) {
    throw data::Error(p.preset.empty() ? "--partitioner" : "--preset " + p.preset,
                      "simulating a partition needs --model (the cost model its durations come from)");
  }
  const auto given = [&cmd](const char* option) { return cmd.count(option) > 0; };
  if (!p.preset.empty()) {
    const partitioners::Preset& preset = partitioners::find_preset(p.preset);
    if (!given("--policy")) o.policy = preset.policy;
    if (!given("--order")) o.order = preset.order;
  }
  p.params.workers = o.workers;
  resolve_partition_spec(p, given);
  o.workers = p.params.workers;
  const data::CostModel model = data::CostModel::load(o.model_path);
  require_within_model(p, model);
  std::string cluster_text;
  sim::ComparisonSpec spec = replicated_spec(o, model, cluster_text);
  spec.span = p.params.span;
  spec.partitioners = {p.partitioner};
  spec.partition = p.params;
  cli::require_memory_for(spec, spec.workers);
  CurrentStep step("simulating " + std::to_string(spec.replicas) + " replicas of " + p.partitioner + " on " +
                   std::to_string(o.workers) + " workers");
  const sim::Comparison comparison = sim::run_comparison(spec);
  std::cerr << sim::survival_warnings(sim::survival_risks(comparison));
  std::int64_t stored = 0;
  if (!o.store.empty() && !o.no_record) {
    data::TraceStore store = data::TraceStore::open(o.store);
    nlohmann::json parameters = parameters_of(o);
    parameters.update({{"preset", p.preset},
                       {"partitioners", p.partitioner},
                       {"ranges_files", nlohmann::json::array()},
                       {"replicas", spec.replicas},
                       {"noise", o.noise},
                       {"partition", partition_settings(p.params)}});
    stored = sim::record_comparison(store, {"compare", o.model_path, spec.span, parameters, {}}, comparison);
  }
  const sim::ComparisonRow& row = comparison.rows.front();
  if (o.json) {
    nlohmann::json out = sim::to_json(comparison);
    out["span"] = {{"first", spec.span.first}, {"last", spec.span.last()}, {"overlap", p.params.overlap}};
    out["cluster_source"] = cluster_text;
    if (stored != 0) out["stored_comparison"] = stored;
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::cout << makespan_answer(row, o, spec.draws_at_random()) << "\n";
  print_cost_band(row);
  if (row.nodes_interrupted > 0) {
    std::cout << "spot interruptions: " << data::readable_number(row.nodes_interrupted) << " nodes taken back, "
              << data::readable_number(row.attempts_interrupted) << " attempts lost with them (means over replicas)\n";
  }
  std::cout << "the partition: " << data::counted(static_cast<std::int64_t>(row.ranges), "range") << " by "
            << p.partitioner << (p.preset.empty() ? "" : " (preset " + p.preset + ")") << ", each with "
            << p.params.overlap << " " << model.units() << " of overlap, over " << span_description(p, model.units())
            << "; durations from "
            << o.model_path << (spec.noise && !model.noise().empty() ? " drawn with its noise" : " as predicted")
            << " (seed " << o.seed << ")\n";
  std::cout << cluster_text << "\n";
  sim::print_table(comparison, std::cout);
  if (stored != 0) std::cout << "stored as comparison " << stored << " in " << o.store << " (run it: run --plan " << stored << ":1)\n";
}

void replay_run(SimulateOptions o, const CLI::App& cmd);

void run_simulate(const SimulateOptions& o, const CLI::App& cmd) {
  const PartitionSpec& p = o.partition;
  const bool partition = !p.preset.empty() || p.tip || !p.span.empty() || !p.partitioner.empty();
  if (partition) {
    if (!o.run.empty() || !o.ranges.empty()) {
      throw data::Error(o.run.empty() ? "--ranges " + o.ranges : "--run " + o.run,
                        "give a recorded run, a ranges file or a partition (--preset, --tip, --span, --partitioner), "
                        "not two");
    }
    return simulate_partition(o, cmd);
  }
  if (o.replicas > 0 && o.ranges.empty()) {
    throw data::Error("--replicas", "a recorded run is replayed once (a partition or a ranges file on --model is "
                                    "simulated in replicas)");
  }
  if (o.run.empty() == o.ranges.empty()) {
    throw data::Error("millrace simulate", "give --run R (replay a recorded run), --model M --ranges FILE, or --model M "
                                           "with a partition (--preset P --tip T, or --span and --partitioner)");
  }
  if (!o.ranges.empty()) return simulate_ranges(o);
  replay_run(o, cmd);
}

// With --run and no capacity typed in (--policy, --workers, --nodes, --slots-per-node,
// --node-pools, --machine), the capacity is the recording's, as `fit` replays it for its cluster
// fidelity (sim/recorded_capacity.h): its policy, worker count and slots into `o`, its recorded
// nodes into `pools` where it has them. Returns what came from where, for the output; empty when
// any capacity option was typed in (they then all take their own defaults, as before).
std::string recorded_capacity(SimulateOptions& o, const CLI::App& cmd, const sim::RecordedRun& recorded,
                              sim::NodePoolsConfig& pools) {
  for (const char* option : {"--policy", "--workers", "--nodes", "--slots-per-node", "--node-pools", "--machine"}) {
    if (cmd.count(option) > 0) return "";
  }
  const sim::Recording recording = sim::on_recorded_capacity(recorded, {});
  const sim::SimulationConfig& capacity = recording.capacity;
  o.policy = capacity.scheduler.policy;
  o.workers = capacity.scheduler.params.workers;
  o.nodes = capacity.cluster.nodes;
  o.slots_per_node = capacity.cluster.slots_per_node;
  pools = capacity.cluster.pools;
  return "capacity: " + recording.capacity_text + ", from run " + recorded.run.name +
         " (--policy, --workers, --nodes or --node-pools to choose)";
}

// A recorded run replayed with its recorded durations under a policy: the makespan first, beside
// the recording's, then the simulated run's summary and the recording's.
void replay_run(SimulateOptions o, const CLI::App& cmd) {
  if (o.store.empty()) throw data::Error("--run " + o.run, "replaying a recorded run needs --store (where it is recorded)");
  data::TraceStore store = data::TraceStore::open(o.store);
  sim::RecordedRun recorded = sim::load_run(store, o.run);
  sim::NodePoolsConfig recorded_pools;
  const std::string capacity_text = recorded_capacity(o, cmd, recorded, recorded_pools);
  require_memory_for(o, recorded.items.size());
  CurrentStep step("simulating run " + o.run + " (" + std::to_string(recorded.items.size()) + " items)");
  sim::ReplayPlan plan = sim::replay_plan(recorded);
  std::cerr << sim::replay_warnings(plan, o.store + " run " + o.run);
  sim::DurationModel durations = sim::table_model(std::move(plan.durations), o.store + " run " + o.run);
  std::string cluster_text;
  sim::SimulationConfig config = config_of(o, cluster_text);
  if (!recorded_pools.pools.empty()) config.cluster.pools = std::move(recorded_pools);
  config.cluster.recorded_ends = std::move(plan.recorded_ends);
  sim::SimulationResult result = sim::simulate(plan.items, durations, config);
  std::cerr << sim::survival_warnings(result.survival_risks);
  data::RunSummary summary = data::summarize(recorded.items, recorded.attempts);
  std::int64_t stored = 0;
  if (!o.no_record) {
    nlohmann::json parameters = parameters_of(o);
    parameters["simulated_from_run"] = recorded.run.id;
    if (!capacity_text.empty()) parameters["capacity"] = capacity_text;
    stored = sim::record_simulation(store, recorded.run, plan.items, result, parameters);
  }
  if (o.json) {
    nlohmann::json out = sim::to_json(result, o.timeline);
    out["recorded"] = sim::to_json(summary);
    out["recorded"]["run"] = recorded.run.id;
    if (!o.model_path.empty()) out["cluster_source"] = cluster_text;
    if (!capacity_text.empty()) out["capacity_source"] = capacity_text;
    if (stored != 0) out["stored_run"] = stored;
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::cout << replay_answer(result, recorded) << "\n";
  if (result.cost) std::cout << "cost " << sim::cost_text(*result.cost) << "\n";
  if (!capacity_text.empty()) std::cout << capacity_text << "\n";
  if (!o.model_path.empty()) std::cout << cluster_text << "\n";
  sim::print_table(result, std::cout);
  print_recorded(recorded, summary, result, std::cout);
  if (stored != 0) std::cout << "stored as simulated run " << stored << " in " << o.store << "\n";
}

}  // namespace

void add_simulate_command(CLI::App& app) {
  auto options = std::make_shared<SimulateOptions>();
  CLI::App* cmd =
      app.add_subcommand("simulate", "Replay a recorded run, or simulate a partition or a ranges file on a cost "
                                     "model, under a policy");
  cmd->add_option("--store", options->store, "Trace store (SQLite file); --ranges with --no-record needs none");
  auto* run = cmd->add_option("--run", options->run, "Recorded run to replay (id or name)");
  auto* ranges = cmd->add_option("--ranges", options->ranges,
                                 "Instead of --run: a ranges file (END/COUNT lines, CSV first,count or first,last, or "
                                 "JSON) simulated with durations from --model");
  run->excludes(ranges);
  cmd->add_option("--model", options->model_path,
                  "Model JSON (from `millrace fit`): with --ranges, its cost model gives the durations; its fitted "
                  "cluster, if it has one, gives placement delays, start-up, worker gaps and failures (with --run "
                  "too: the recorded durations replayed under that cluster)");
  cmd->add_option("--noise", options->noise,
                  "With --model: on draws each range's duration from the model's noise (seeded), off takes the "
                  "prediction; a recorded run keeps its recorded durations")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  cmd->add_option("--policy", options->policy,
                  "Concurrency policy: " + scheduler::policy_list() +
                      " (default: --run's as recorded, --preset's, else " + options->policy + ")")
      ->check(CLI::IsMember(scheduler::policy_names()));
  cmd->add_option("--workers", options->workers,
                  "Pool size (fixed-pool, partial), max in flight (job-per-item), maximum (autoscale) (default: "
                  "--run's as recorded, --preset's, else " + std::to_string(options->workers) + ")")
      ->transform(whole_number(1));
  add_autoscale_options(cmd, options->autoscale);
  cmd->add_option("--order", options->order,
                  "Queue order: plan (the recorded run's own order, or the ranges file's), tip-first, lpt (longest "
                  "recorded first) or priority (default: --preset's, else " + options->order + ")");
  add_seed_option(*cmd, options->seed);
  cmd->add_option("--fail-prob", options->fail_prob,
                  "Probability that an attempt fails part-way (default: the model's fitted failures, else 0)")
      ->capture_default_str()
      ->transform(real_number(0, 1))
      ->each([options](const std::string&) { options->fail_prob_given = true; });
  cmd->add_option("--startup-latency", options->startup_latency,
                  "Pod start-up latency, or comma-separated samples drawn uniformly (e.g. 20s,30s,90s) (default: "
                  "the model's fitted start-up, else 0)")
      ->capture_default_str()
      ->each([options](const std::string&) { options->startup_latency_given = true; });
  cmd->add_option("--create-overhead", options->create_overhead, "API time to create a pod")->transform(micros());
  cmd->add_option("--delete-overhead", options->delete_overhead, "Time a finished Job's pod keeps its slot")
      ->transform(micros());
  cmd->add_option("--nodes", options->nodes, "Cluster nodes (default: --run's recorded nodes, else --workers)")->transform(whole_number(1));
  cmd->add_option("--slots-per-node", options->slots_per_node, "Attempts a node runs at once")
      ->capture_default_str()
      ->transform(whole_number(1));
  cmd->add_option("--node-loss", options->node_losses, "NODE@TIME: lose a node (repeatable, e.g. 3@2h)");
  cmd->add_option("--api-down", options->api_down, "FROM-TO: cluster API unavailable (repeatable, e.g. 1h-1.5h)");
  cmd->add_option("--max-attempts", options->max_attempts, "Attempts per item, including the first")
      ->capture_default_str()
      ->transform(whole_number(1));
  cmd->add_option("--backoff", options->backoff, "Wait before the first retry (doubling after)")
      ->transform(micros(scheduler::RetryPolicy{}.max_backoff));
  add_resource_options(*cmd, options->resources);
  cmd->add_flag("--report-exhausted", options->report_exhausted,
                "An item out of attempts is reported but does not fail the run");
  cmd->add_flag("--json", options->json, "Print JSON instead of a table");
  cmd->add_flag("--timeline", options->timeline, "Include the timeline of cluster events in the JSON");
  cmd->add_flag("--no-record", options->no_record, "Do not store the simulated run");
  add_partition_spec_options(cmd, options->partition);
  cmd->add_option("--replicas", options->replicas,
                  "A partition or ranges file: simulations, each drawing its own durations (default: " +
                      std::to_string(sim::kBandReplicas) + " when they differ, else 1)")
      ->transform(whole_number(1));
  set_help_groups(*cmd, {{"What to simulate", {"--run", "--ranges", "--preset", "--tip", "--start", "--span", "--partitioner", "--range-count", "--range-length", "--overlap", "--align", "--floor", "--order", "--seed", "--replicas"}},
                         {kModelGroup, {"--model", "--noise"}},
                         {kClusterGroup,
                          {"--policy", "--workers", "--startup-latency", "--create-overhead", "--delete-overhead",
                           "--nodes", "--slots-per-node"}},
                         {kFailuresGroup,
                          {"--fail-prob", "--node-loss", "--api-down", "--max-attempts", "--backoff",
                           "--report-exhausted"}},
                         {kOutputGroup, {"--store", "--json", "--timeline", "--no-record"}}});
  set_help_examples(
      *cmd,
      {{"Replay the recorded run as it ran: a fixed pool of 192 workers, in its own order",
        "millrace simulate --store out/t.db --run pcv2 --policy fixed-pool --workers 192 --order plan"},
       {"The same ranges as one Job each, at most 192 at once, with pod start-up and 1% failures",
        "millrace simulate --store out/t.db --run pcv2 --policy job-per-item --workers 192 "
        "--startup-latency 20s,30s,90s --fail-prob 0.01 --seed 1"},
       {"A ranges file on the fitted cost model",
        "millrace simulate --store out/t.db --model out/model.json --ranges out/theirs.txt --workers 192 "
        "--order tip-first"}});
  cmd->callback([options, cmd] { run_simulate(*options, *cmd); });
}

}  // namespace millrace::cli
