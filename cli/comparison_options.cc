#include "cli/comparison_options.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>
#include <limits>
#include <stdexcept>

#include "cli/current_step.h"
#include "cli/duration_option.h"
#include "cli/fitted_cluster.h"
#include "cli/help_layout.h"
#include "cli/experiment_file.h"
#include "cli/memory_budget.h"
#include "cli/option_checks.h"
#include "cli/partition_size.h"
#include "cli/progress_display.h"
#include "cli/recorded_observations.h"
#include "cli/span_option.h"
#include "cli/stored_plan.h"
#include "data/error.h"
#include "data/model_span.h"
#include "partitioners/preset.h"
#include "partitioners/ranges_file.h"
#include "partitioners/registry.h"
#include "scheduler/concurrency_policy.h"
#include "scheduler/work_queue.h"
#include "sim/replay.h"

namespace millrace::cli {

namespace {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t from = 0;
  for (std::size_t comma; (comma = text.find(',', from)) != std::string::npos; from = comma + 1) {
    parts.push_back(text.substr(from, comma - from));
  }
  parts.push_back(text.substr(from));
  return parts;
}

// The most simulation threads: more than any machine's cores, less than a thread per worker
// count of a big sweep.
constexpr std::int64_t kMaxThreads = 1024;

// Peak memory per range of the partitions compared (their plans, and the simulation of one): 577
// bytes; per replica's result: 112 bytes. Measured with /usr/bin/time -f %M between 10^5 and
// 10^6 ranges (`compare --range-count`), and replicas (`compare --replicas`); since then each
// row keeps its replicas' waits too (sizeof(data::WaitSummary), 48 bytes: added, not measured).
constexpr double kBytesPerRange = 580;
constexpr double kBytesPerReplica = 112 + sizeof(data::WaitSummary);

std::vector<sim::ListedPartition> listed_partitions(const ComparisonOptions& o, const data::CostModel& model,
                                                    const std::vector<std::string>& partitioner_names) {
  std::vector<sim::ListedPartition> listed;
  std::set<std::string> taken(partitioner_names.begin(), partitioner_names.end());
  taken.insert("recorded");
  for (const std::string& text : o.ranges_files) {
    auto [name, path] = candidate_name_and_file(text);
    if (name.empty() || !taken.insert(name).second) {
      throw data::Error("--ranges " + text, "candidate name '" + name + "' is empty or already taken (use NAME=FILE)");
    }
    const partitioners::RangesFile file = partitioners::read_ranges_file(path);
    partitioners::require_within_model(file, model);
    listed.push_back({name, file.partition(), file.requests(), file.file_order});
  }
  return listed;
}

// The units the recorded run's ranges cover, without the bottom `overlap` units (which the
// partitions' lowest work range replays).
data::Range recorded_span(const std::vector<data::WorkItem>& items, std::int64_t overlap, const std::string& name) {
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  std::int64_t end = std::numeric_limits<std::int64_t>::min();
  for (const data::WorkItem& item : items) {
    if (!item.range) throw data::Error(name, "item " + item.id + " has no range to compare partitions on");
    first = std::min(first, item.range->first);
    end = std::max(end, item.range->end());
  }
  if (end - first <= overlap) throw data::Error("--overlap " + std::to_string(overlap), "leaves nothing of " + name);
  return {first + overlap, end - first - overlap};
}

// The options with --preset's settings where they are not given.
ComparisonOptions with_preset(ComparisonOptions o) {
  if (o.preset.empty()) return o;
  const partitioners::Preset& preset = partitioners::find_preset(o.preset);
  auto unset = [&](const char* option) { return !o.partition_options_given.count(option); };
  if (unset("--range-length") && unset("--range-count")) o.range_length = preset.range_length;
  if (unset("--overlap")) o.overlap = preset.overlap;
  if (unset("--align")) o.align = preset.align;
  if (unset("--floor")) o.floor = preset.floor;
  return o;
}

// Whether the items are handed out tip first: each range above the next.
bool tip_first(const std::vector<data::WorkItem>& items) {
  for (std::size_t i = 0; i + 1 < items.size(); ++i) {
    if (!items[i].range || !items[i + 1].range || items[i].range->first <= items[i + 1].range->first) return false;
  }
  return items.size() > 1;
}

}  // namespace

QueueOrderChoice queue_order_choice(const ComparisonOptions& o, const std::optional<std::vector<data::WorkItem>>& recorded) {
  if (o.orders_given) return {o.orders, "as given (--order)"};
  if (!o.preset.empty()) {
    return {partitioners::find_preset(o.preset).order, "the order of preset " + o.preset + "; --order to choose"};
  }
  if (recorded && tip_first(*recorded)) {
    return {"tip-first", "run " + o.run + " handed its ranges out tip first; --order to choose"};
  }
  return {o.orders, "the default: plan order; --order to choose"};
}

void add_comparison_options(CLI::App* cmd, ComparisonOptions& o) {
  add_experiment_file_option(cmd, o.experiment);
  cmd->add_option("--store", o.store,
                  "Trace store (SQLite file); results are stored in it (needed unless --no-record, without --run "
                  "or --fit-runs)");
  auto* model = cmd->add_option("--model", o.model_path, "Cost model JSON (from `millrace fit`)");
  cmd->add_option("--fit-runs", o.fit_runs,
                  "Instead of --model: fit the cost model from these recorded runs of the store (comma-separated ids "
                  "or names), as `millrace fit --runs` does")
      ->excludes(model);
  // Values the command reads later are also checked as they are parsed (each: the same check,
  // the same message), so an experiment file's bad value is refused with its FILE:LINE:COLUMN.
  cmd->add_option("--span", o.span,
                  "FIRST:LAST, inclusive (default: the recorded run's units with --run, else the model's span)")
      ->each([](const std::string& text) { parse_span(text); });
  cmd->add_option("--run", o.run, "Recorded run (id or name): its span, and a baseline replaying it as recorded");
  cmd->add_option("--partitioners", o.partitioners, "Comma-separated, of: " + partitioners::partitioner_list(","))
      ->capture_default_str()
      ->each([&o](const std::string& text) {
        if (!text.empty()) {  // empty: no partitioner, only --ranges candidates
          for (const std::string& name : split_list(text)) partitioners::find_partitioner(name, "--partitioners");
        }
        o.partitioners_given = true;
      });
  cmd->add_option("--policy", o.policy, "Concurrency policy")
      ->capture_default_str()
      ->check(CLI::IsMember(scheduler::policy_names()));
  cmd->add_option("--order", o.orders,
                  "Comma-separated queue orders: plan (tip first for recorded runs), tip-first, lpt (default: the "
                  "preset's order, else tip-first when --run's ranges were handed out tip first, else plan)")
      ->capture_default_str()
      ->each([&o](const std::string& text) {
        for (const std::string& order : split_list(text)) scheduler::queue_order_from_string(order);
        o.orders_given = true;
      });
  std::string presets;
  for (const std::string& n : partitioners::preset_names()) presets += (presets.empty() ? "" : ", ") + n;
  cmd->add_option("--preset", o.preset,
                  "a deployment's settings (" + presets + "): its queue order, range length, overlap, alignment and "
                  "floor where not given")
      ->each([](const std::string& text) { partitioners::find_preset(text); });
  cmd->add_option("--replicas", o.replicas,
                  "Simulations per combination, each with its own seed (default: " +
                      std::to_string(sim::kBandReplicas) +
                      " when they differ: durations drawn from the model's noise, failures, start-up samples or a "
                      "fitted cluster; else 1)")
      ->transform(whole_number(1));
  add_seed_option(*cmd, o.seed);
  cmd->add_option("--noise", o.noise,
                  "on: each replica draws the partitions' range durations from the model's noise; off: the "
                  "predictions (the recorded run keeps its recorded durations either way)")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  cmd->add_option("--fail-prob", o.fail_prob,
                  "Probability that an attempt fails part-way (default: the model file's fitted failures, else 0)")
      ->capture_default_str()
      ->transform(real_number(0, 1))
      ->each([&o](const std::string&) { o.fail_prob_given = true; });
  cmd->add_option("--startup-latency", o.startup_latency,
                  "Pod start-up latency, or comma-separated samples drawn uniformly (e.g. 20s,30s,90s) (default: "
                  "the model file's fitted start-up, else 0)")
      ->capture_default_str()
      ->each([&o](const std::string& text) {
        parse_startup_latency(text, "--startup-latency");
        o.startup_latency_given = true;
      });
  cmd->add_option("--max-attempts", o.max_attempts, "Attempts per item, including the first")
      ->capture_default_str()
      ->transform(whole_number(1));
  cmd->add_option("--ranges", o.ranges_files,
                  "A ranges file (END/COUNT lines, CSV first,count or first,last, or JSON) scored as a candidate "
                  "named after the file, or NAME=FILE; repeatable");
  cmd->add_option("--range-count", o.ranges, "Range count for uniform, cost-balanced and optimal (default: per worker)")
      ->transform(whole_number(1, kMaxUnit))
      ->each([&o](const std::string&) { o.partition_options_given.insert("--range-count"); });
  cmd->add_option("--range-length", o.range_length, "uniform: units per range, cut from the top")
      ->transform(whole_number(1, kMaxUnit))
      ->each([&o](const std::string&) { o.partition_options_given.insert("--range-length"); });
  cmd->add_option("--overlap", o.overlap, "Units each range also replays before its first")
      ->transform(whole_number(0, kMaxUnit))
      ->each([&o](const std::string&) { o.partition_options_given.insert("--overlap"); });
  cmd->add_option("--align", o.align, "Cuts fall on multiples of this (checkpoint stride; default: the preset's, else 1)")
      ->capture_default_str()
      ->transform(whole_number(1, kMaxUnit))
      ->each([&o](const std::string&) { o.partition_options_given.insert("--align"); });
  cmd->add_option("--floor", o.floor, "logarithmic: smallest range length (default span / (16 x workers))")
      ->transform(whole_number(1, kMaxUnit))
      ->each([&o](const std::string&) { o.partition_options_given.insert("--floor"); });
  cmd->add_option("--threads", o.threads, "Simulation threads (default: hardware concurrency)")
      ->transform(whole_number(0, kMaxThreads));
  add_resource_options(*cmd, o.resources);
  cmd->add_flag("--json", o.json, "Print JSON instead of a table");
  cmd->add_flag("--no-record", o.no_record, "Do not store the results");
  add_quiet_flag(cmd, o.quiet);
  put_in_group(*cmd, {kJobGroup, {"-f", "--run", "--span", "--preset"}});
  put_in_group(*cmd, {kCandidatesGroup,
                      {"--partitioners", "--ranges", "--range-count", "--range-length", "--overlap", "--align",
                       "--floor", "--order"}});
  put_in_group(*cmd, {kModelGroup, {"--model", "--fit-runs", "--noise", "--replicas", "--seed"}});
  put_in_group(*cmd, {kClusterGroup, {"--policy", "--startup-latency"}});
  put_in_group(*cmd, {kFailuresGroup, {"--fail-prob", "--max-attempts"}});
  put_in_group(*cmd, {kOutputGroup, {"--store", "--json", "--no-record", "--threads"}});
}

DigestedModel comparison_model(const ComparisonOptions& o, const data::TraceStore& store) {
  if (o.fit_runs.empty()) {
    if (o.model_path.empty()) throw data::Error("--model", "give a cost model file, or --fit-runs RUNS to fit one");
    return read_digested_model(o.model_path);
  }
  const RecordedObservations recorded = recorded_observations(store, o.fit_runs);
  data::FitOptions fit;
  fit.units = recorded.units;
  fit.source = o.store + " runs " + recorded.names;
  ProgressDisplay progress(o.quiet);
  fit.progress = progress.report("fit", "cross-validation steps");
  CurrentStep step("fitting the cost model to " + std::to_string(recorded.observations.size()) + " observations");
  return {data::fit_cost_model(recorded.observations, fit, "--fit-runs " + o.fit_runs).model, ""};
}

data::TraceStore comparison_store(const ComparisonOptions& o) {
  if (!o.store.empty()) return data::TraceStore::open_existing(o.store);
  const char* needs = !o.run.empty() ? "--run reads a recorded run from it"
                      : !o.fit_runs.empty() ? "--fit-runs reads recorded runs from it"
                      : !o.no_record ? "the result is stored in it (or give --no-record)"
                                     : nullptr;
  if (needs != nullptr) throw data::Error("--store", std::string("required: ") + needs);
  return data::TraceStore::in_memory();
}

std::string model_label(const ComparisonOptions& o) {
  return o.fit_runs.empty() ? o.model_path : "fitted from runs " + o.fit_runs;
}

std::vector<int> parse_workers(const std::string& text, const std::string& option) {
  std::vector<int> workers;
  for (const std::string& part : split_list(text)) {
    std::size_t used = 0;
    long long value = 0;
    try {
      value = std::stoll(part, &used);
    } catch (const std::logic_error&) {
      used = 0;
    }
    if (used == 0 || used != part.size() || value < 1 || value > std::numeric_limits<int>::max()) {
      throw data::Error(option + " '" + text + "'", "expected comma-separated positive worker counts, e.g. 32,64,128");
    }
    workers.push_back(static_cast<int>(value));
  }
  return workers;
}

sim::ComparisonSpec comparison_spec(const ComparisonOptions& given, const data::TraceStore& store,
                                    const data::CostModel* model) {
  const ComparisonOptions o = with_preset(given);
  sim::ComparisonSpec spec;
  spec.model = model;
  if (model == nullptr && o.run.empty()) {
    throw data::Error("--model", "give a cost model (to simulate partitions) or --run (a recorded run to replay)");
  }
  if (!o.partitioners.empty() && (model != nullptr || o.partitioners_given)) spec.partitioners = split_list(o.partitioners);
  spec.seed = o.seed;
  spec.noise = o.noise == "on";
  spec.threads = o.threads;
  if (o.fail_prob >= 1) throw data::Error("--fail-prob " + std::to_string(o.fail_prob), "must be in [0, 1)");
  spec.base.cluster.fail_prob = o.fail_prob;
  spec.base.cluster.startup = parse_startup_latency(o.startup_latency, "--startup-latency");
  const ClusterSource cluster =
      cluster_source(o.fit_runs.empty() ? o.model_path : "", o.startup_latency_given, o.fail_prob_given);
  spec.base.cluster.fitted = cluster.fitted;
  spec.cluster_source = cluster.text;
  spec.base.scheduler.plan_name = o.store + " comparison";
  spec.base.scheduler.policy = o.policy;
  spec.base.scheduler.retry.max_attempts = o.max_attempts;
  spec.base.scheduler.on_exhausted = scheduler::OnExhausted::kReport;
  apply_resource_options(o.resources, spec.base);
  spec.replicas = o.replicas > 0 ? o.replicas : spec.draws_at_random() ? sim::kBandReplicas : 1;
  spec.partition.ranges = o.ranges;
  spec.partition.range_length = o.range_length;
  spec.partition.overlap = o.overlap;
  spec.partition.align = o.align;
  spec.partition.floor = o.floor;
  std::string span_source = "--span " + o.span;
  if (!o.run.empty()) {
    const std::string name = o.store + " run " + o.run;
    const sim::RecordedRun recorded = sim::load_run(store, o.run);
    sim::ReplayPlan plan = sim::replay_plan(recorded);
    std::cerr << sim::replay_warnings(plan, name);
    for (const data::WorkItem& item : plan.items) spec.recorded_durations.push_back(plan.durations.at(item.id));
    if (model != nullptr) spec.span = recorded_span(plan.items, o.overlap, name);
    spec.recorded_items = std::move(plan.items);
    spec.recorded_ends = std::move(plan.recorded_ends);
    if (o.span.empty()) span_source = "--run " + o.run + " (span " + data::span_text(spec.span) + ")";
  }
  spec.orders.clear();
  for (const std::string& order : split_list(queue_order_choice(o, spec.recorded_items).orders)) {
    spec.orders.push_back(scheduler::queue_order_from_string(order));
  }
  if (model == nullptr) {
    if (!o.ranges_files.empty()) throw data::Error("--ranges " + o.ranges_files.front(), "simulating listed ranges needs a cost model (--model)");
    return spec;
  }
  if (!o.span.empty()) {
    spec.span = parse_span(o.span);
  } else if (o.run.empty()) {
    // The model's span holds every unit its recorded ranges replayed, their overlap included: the
    // work spans it less the overlap at the bottom, as the recorded run's work did (recorded_span).
    const data::Range known = model->span();
    if (known.count <= o.overlap) {
      throw data::Error("--overlap " + std::to_string(o.overlap), "leaves nothing of the model's span " + data::span_text(known));
    }
    spec.span = {known.first + o.overlap, known.count - o.overlap};
    span_source = "the model's span";
  }
  data::require_within_model_span(*model, {spec.span.first - o.overlap, spec.span.count + o.overlap},
                                  span_source + (o.overlap > 0 ? " with --overlap " + std::to_string(o.overlap) : ""));
  spec.listed = listed_partitions(o, *model, spec.partitioners);
  return spec;
}

void require_memory_for(const sim::ComparisonSpec& spec, const std::vector<int>& workers) {
  double ranges = 0;
  RangeRequest largest;
  for (const std::string& partitioner : spec.partitioners) {
    for (int w : workers) {
      partitioners::PartitionParams params = spec.partition;
      params.span = spec.span;
      params.workers = w;
      params = partitioners::with_defaults(partitioner, params, "--partitioners");
      const RangeRequest request = requested_ranges(partitioner, params);
      ranges += request.ranges;
      if (request.ranges > largest.ranges) largest = request;
    }
  }
  require_memory(ranges, kBytesPerRange, largest.option,
                 "ranges in the " + std::to_string(spec.partitioners.size() * workers.size()) + " partitions compared");
  const unsigned threads = spec.thread_count();
  const int most = *std::max_element(workers.begin(), workers.end());
  if (spec.base.cluster.pools.pools.empty()) {  // node pools build no slots and count their nodes
    require_memory(static_cast<double>(most) * threads, kBytesPerSimulatedSlot, "--workers " + std::to_string(most),
                   "worker slots of " + std::to_string(threads) + " simulations at once");
  }
  const double combinations = static_cast<double>(spec.partitioners.size() * workers.size() * spec.orders.size());
  require_memory_for_replicas(combinations, spec.replicas,
                              std::to_string(static_cast<long long>(combinations)) + " combinations");
}

void require_memory_for_replicas(double rows, int replicas, const std::string& rows_text) {
  require_memory(rows * replicas, kBytesPerReplica, "--replicas " + std::to_string(replicas),
                 "replica results of " + rows_text);
}

std::pair<std::string, std::string> candidate_name_and_file(const std::string& text) {
  const std::size_t equals = text.find('=');
  if (equals != std::string::npos && equals > 0 && text.find('/') > equals) {
    return {text.substr(0, equals), text.substr(equals + 1)};
  }
  return {std::filesystem::path(text).stem().string(), text};
}

nlohmann::json parameters_of(const ComparisonOptions& o, const std::string& model_sha256) {
  nlohmann::json parameters = {{"run", o.run},
          {"fit_runs", o.fit_runs},
          {"partitioners", o.partitioners},
          {"ranges_files", o.ranges_files},
          {"policy", o.policy},
          {"orders", o.orders},
          {"preset", o.preset},
          {"replicas", o.replicas},
          {"seed", o.seed},
          {"noise", o.noise},
          {"fail_prob", o.fail_prob},
          {"startup_latency", o.startup_latency},
          {"max_attempts", o.max_attempts},
          {"ranges", o.ranges},
          {"range_length", o.range_length},
          {"overlap", o.overlap},
          {"align", o.align},
          {"floor", o.floor}};
  if (!model_sha256.empty()) parameters["model_sha256"] = model_sha256;
  return parameters;
}

}  // namespace millrace::cli
