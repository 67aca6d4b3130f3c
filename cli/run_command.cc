// `millrace run`: runs a plan for real through the scheduler core on a real cluster, chosen by
// --cluster among the kinds of cli/cluster_kinds.cc: local processes (the embedded default) or
// Kubernetes Jobs. The span is cut by a named partitioner, or the ranges come as listed in a
// team's own ranges file (partitioners/ranges_file.h, as `compare --ranges` scores them); the rest of the run (recording,
// status, progress, Ctrl-C, --resume, one live owner) is a real-run session
// (cluster_adapter/realtime/real_run_session.h), the same for every kind.
#include <iostream>
#include <memory>
#include <optional>
#include <set>

#include "cli/autoscale_options.h"
#include "cli/cluster_kinds.h"
#include "cli/commands.h"
#include "cli/current_step.h"
#include "cli/help_layout.h"
#include "cli/memory_budget.h"
#include "cli/option_checks.h"
#include "cli/partition_size.h"
#include "cli/run_prediction.h"
#include "cli/run_summary_text.h"
#include "cli/span_option.h"
#include "cli/stored_plan.h"
#include "cluster_adapter/realtime/real_run_session.h"
#include "data/cost_model.h"
#include "data/error.h"
#include "data/quantity.h"
#include "data/run_summary.h"
#include "data/trace_store.h"
#include "partitioners/ranges_file.h"
#include "partitioners/registry.h"
#include "scheduler/concurrency_policy.h"
#include "scheduler/retry_policy.h"
#include "scheduler/work_queue.h"
#include "sim/node_pools.h"

namespace millrace::cli {

namespace {

// `run`'s own options: the session's and how the span is cut.
struct RunOptions {
  cluster_adapter::RealRunOptions session;
  std::string model_path;
  std::optional<data::CostModel> model;                // loaded from model_path
  partitioners::PartitionParams partition;
  std::string ranges_file;                             // instead of --span and --partitioner
  std::optional<partitioners::RangesFile> listed;      // its ranges, read before the run opens
  std::string requests;    // --request: every item's (a listed range's own request.NAME wins)
  std::string node_pools;  // --node-pools: Kubernetes pools an item must fit
  std::string order = "plan";  // --order
  std::string plan;            // --plan COMPARISON[:ROW]
  cluster_adapter::ClusterKinds kinds = run_cluster_kinds();
};

// Peak memory of `run` per range of its plan (items, scheduler, recorder, store rows): 461
// bytes, measured with /usr/bin/time -f %M between plans of 10^5 and 10^6 ranges; and per
// worker slot: 33 bytes, between 10^6 and 10^7 --workers.
constexpr double kRunBytesPerRange = 461;
constexpr double kRunBytesPerWorker = 33;

// The run's partition and the order its ranges are handed out in (plan order): a ranges file's
// ranges in the file's order (a ranges file's order is its plan order), or the span cut by the
// partitioner, ascending.
sim::ListedPartition run_partition(const RunOptions& o, const data::CostModel* model) {
  if (o.listed) {
    if (model) partitioners::require_within_model(*o.listed, *model);
    return {"ranges file " + o.ranges_file, o.listed->partition(), o.listed->requests(), o.listed->file_order};
  }
  partitioners::PartitionParams params = o.partition;
  params.span = parse_span(o.session.span);
  if (params.workers == 0) params.workers = o.session.common.workers;
  params.model = model;
  require_memory_for_ranges(o.session.partitioner, params, kRunBytesPerRange);
  CurrentStep step("planning the ranges of --span " + o.session.span);
  return {o.session.partitioner, partitioners::make_partition(o.session.partitioner, params), {}, {}};
}

std::vector<data::Range> work_ranges_in_plan_order(const sim::ListedPartition& partition) {
  std::vector<data::Range> work = partition.partition.work_ranges();
  if (partition.plan_order.empty()) return work;
  std::vector<data::Range> ordered;
  ordered.reserve(work.size());
  for (std::size_t i : partition.plan_order) ordered.push_back(work[i]);
  return ordered;
}

std::vector<data::WorkItem> plan_items(RunOptions& o) {
  const std::optional<data::CostModel>& model = o.model;
  const int workers = o.session.common.workers;
  require_memory(workers, kRunBytesPerWorker, "--workers " + std::to_string(workers), "worker slots");
  const data::Quantities requests =
      o.requests.empty() ? data::Quantities{} : data::parse_quantity_list(o.requests, "--request");
  const std::vector<data::Quantities> listed_requests =
      o.listed ? o.listed->requests_in_file_order() : std::vector<data::Quantities>{};
  const sim::ListedPartition partition = run_partition(o, model ? &*model : nullptr);
  std::vector<data::WorkItem> items;
  for (const data::Range& range : work_ranges_in_plan_order(partition)) {
    data::WorkItem& item = items.emplace_back();
    item.id = range.text();
    item.range = range;
    item.predicted = model ? model->predict(range) : 0;
    if (items.size() <= listed_requests.size()) item.requests = listed_requests[items.size() - 1];
    item.requests.insert(requests.begin(), requests.end());
  }
  if (!o.node_pools.empty()) {
    if (o.session.cluster != "kubernetes") {
      throw data::Error("--node-pools " + o.node_pools,
                        "declares a Kubernetes cluster's pools (--cluster kubernetes); locally use --local-capacity");
    }
    sim::check_fits_a_pool(items, sim::read_node_pools(o.node_pools));
  }
  if (model && o.session.chosen_plan.is_null()) {
    CurrentStep step("predicting the run's makespan");
    o.session.predicted_makespan =
        predict_run_makespan({partition, workers, o.session.order, o.session.common.policy, o.session.autoscale},
                             *model, o.model_path);
  }
  return items;
}

// --plan: the partition, worker count, order, policy and model a stored comparison chose.
void take_chosen_plan(RunOptions& o) {
  ChosenPlan chosen;
  {
    const data::TraceStore store = data::TraceStore::open_existing(o.session.common.store_path);
    chosen = chosen_plan(store, o.plan);
  }
  o.model_path = chosen.model_path;
  o.model = std::move(chosen.model);
  o.session.span = std::to_string(chosen.partition.span.first) + ":" + std::to_string(chosen.partition.span.last());
  if (chosen.ranges_file.empty()) {
    o.session.partitioner = chosen.partitioner;
    o.partition = chosen.partition;
  } else {
    o.ranges_file = chosen.ranges_file;
  }
  o.session.common.workers = chosen.workers;
  o.order = chosen.order;
  o.session.common.policy = chosen.policy;
  o.session.autoscale = chosen.autoscale;
  o.session.chosen_plan = chosen.to_json();
  if (!chosen.model_unchecked.empty()) std::cerr << "millrace: warning: --plan " << o.plan << " " << chosen.model_unchecked << "\n";
  std::cerr << "millrace: running " << chosen.text() << "\n";
}

// A resumed run is the run it was started as: its span, ranges, limits and cluster settings are
// kept in the store. Besides --resume it takes the options below and those its kinds name
// (ClusterKind::resume_options); any other given with it would be ignored, so it is refused.
void refuse_ignored_by_resume(const CLI::App& cmd, const cluster_adapter::ClusterKinds& kinds) {
  std::set<std::string> taken = {"--store", "--resume", "--leftovers", "--leftover-wait", "--workers", "--status-port",
                                 "--order"};
  for (const std::unique_ptr<cluster_adapter::ClusterKind>& kind : kinds.all()) {
    for (const std::string& name : kind->resume_options()) taken.insert(name);
  }
  std::vector<std::string> also;  // what --resume takes besides --store, as the refusal names it
  for (const std::string& name : taken) {
    if (name != "--store" && name != "--resume") also.push_back(name);
  }
  for (const CLI::Option* option : cmd.get_options()) {
    if (option->count() == 0 || taken.contains(option->get_name())) continue;
    throw data::Error(option->get_name(), "a resumed run keeps what it was started with (its span, ranges, limits and "
                                          "cluster settings, kept in the store), so this would be ignored: drop " +
                                              option->get_name() + ", or start a new run to change it (--resume " +
                                              "takes " + CLI::detail::join(also, ", ") + ")");
  }
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run a plan for real (local processes or Kubernetes Jobs), recording every attempt");
  cmd->add_option("--cluster", o->session.cluster, "where attempts run: " + o->kinds.names())->default_val("local");
  cmd->add_option("--store", o->session.common.store_path, "trace store (SQLite file) that records the run")->required();
  CLI::Option* resume =
      cmd->add_option("--resume", o->session.resume, "continue this run (id or name) from what the store recorded");
  cmd->add_option("--leftovers", o->session.leftovers,
                  "--resume: what becomes of the attempts a killed millrace left running: end (killed, their ranges "
                  "run again; the default) or wait (waited for, their exit code and duration recorded, so a range that "
                  "succeeded is not run again). Kubernetes: the run always adopts its Jobs, the Kubernetes form of wait")
      ->check(CLI::IsMember({"end", "wait"}));
  cmd->add_option("--leftover-wait", o->session.leftover_wait_s,
                  "--leftovers wait: seconds to wait for them at most before the rest is ended and run again "
                  "(0: no limit but the run's --timeout, counted from each attempt's start)")
      ->transform(seconds());
  cmd->add_option("--name", o->session.name, "name of the new run (Kubernetes Jobs are named after it and the run id)");
  cmd->add_option("--units", o->session.units, "what a unit of the span is (ledgers, blocks, ...)");
  auto* ranges = cmd->add_option("--ranges", o->ranges_file,
                                 "instead of --span and --partitioner: a ranges file (END/COUNT lines, CSV or JSON, as "
                                 "compare --ranges takes) whose ranges run as listed");
  const std::vector<CLI::Option*> cutting = {
      cmd->add_option("--span", o->session.span, "FIRST:LAST, inclusive units to process"),
      cmd->add_option("--partitioner", o->session.partitioner, "one of: " + partitioners::partitioner_list()),
      cmd->add_option("--range-count", o->partition.ranges, "number of ranges")->transform(whole_number(1, kMaxUnit)),
      cmd->add_option("--range-length", o->partition.range_length, "uniform: units per range")
          ->transform(whole_number(1, kMaxUnit)),
      cmd->add_option("--overlap", o->partition.overlap, "units each range also replays before its first")
          ->transform(whole_number(0, kMaxUnit)),
      cmd->add_option("--align", o->partition.align, "cuts fall on multiples of this")
          ->transform(whole_number(1, kMaxUnit))};
  for (CLI::Option* option : cutting) ranges->excludes(option);
  auto* model = cmd->add_option("--model", o->model_path, "cost model JSON (from `millrace fit`) for predictions and ETA");
  auto* policy = cmd->add_option("--policy", o->session.common.policy,
                                 "concurrency policy: " + scheduler::policy_list() +
                                     " (default: fixed-pool locally, job-per-item on Kubernetes)")
                     ->check(CLI::IsMember(scheduler::policy_names()));
  auto* workers = cmd->add_option("--workers", o->session.common.workers,
                                  "attempts running at once (pool size; on Kubernetes, unfinished Jobs); with --resume, "
                                  "for this session")
                      ->default_val(1)
                      ->transform(whole_number(1))
                      ->each([o](const std::string&) { o->session.workers_given = true; });
  auto* order = cmd->add_option("--order", o->order,
                                "the order ranges are handed out in, as compare names them: plan (the partition's, or a "
                                "ranges file's own), tip-first (highest units first), lpt (longest predicted first; "
                                "needs --model)")
                    ->check(CLI::IsMember({"plan", "tip-first", "lpt"}))
                    ->each([o](const std::string&) { o->session.order_given = true; });
  std::vector<CLI::Option*> chosen_by_plan = cutting;  // what --plan sets
  chosen_by_plan.insert(chosen_by_plan.end(), {ranges, model, policy, workers, order});
  auto* plan = cmd->add_option("--plan", o->plan,
                               "COMPARISON[:ROW]: run what a stored plan chose (its answer) or a compare's row (from "
                               "1, as printed): its partition, workers, order, policy and model, linked to the run");
  plan->excludes(resume);
  for (CLI::Option* option : chosen_by_plan) plan->excludes(option);
  add_autoscale_options(cmd, o->session.autoscale);
  cmd->add_option("--request", o->requests,
                  "what each item asks for, e.g. cpu=2,memory=4Gi: a Job's container resources.requests on "
                  "Kubernetes, packed into --local-capacity locally");
  cmd->add_option("--node-pools", o->node_pools,
                  "kubernetes: the node pools (as simulate takes them); an item fitting no pool's machine is refused "
                  "before anything is submitted");
  cmd->add_option("--max-attempts", o->session.max_attempts, "attempts per item, first included")
      ->default_val(3)
      ->transform(whole_number(1));
  cmd->add_option("--backoff", o->session.backoff_s, "seconds before the first retry (doubling, at most the first wait's cap)")
      ->transform(seconds(scheduler::RetryPolicy{}.max_backoff));
  cmd->add_option("--status-port", o->session.status_port,
                  "serve /status, /metrics and /healthz on 127.0.0.1:PORT (0: any free port)")
      ->transform(tcp_port());

  const cluster_adapter::OptionChecks checks = cluster_option_checks();
  for (const std::unique_ptr<cluster_adapter::ClusterKind>& kind : o->kinds.all()) {
    const std::size_t before = cmd->get_options().size();
    kind->add_options(*cmd, checks);
    for (std::size_t i = before; i < cmd->get_options().size(); ++i) {
      cmd->get_options()[i]->group("With --cluster " + kind->name());
    }
  }
  std::vector<HelpGroup> groups = {
      {"What to run",
       {"--name", "--units", "--plan", "--ranges", "--span", "--partitioner", "--range-count", "--range-length",
        "--overlap", "--align", "--order", "--request"}},
      {kModelGroup, {"--model"}},
      {kClusterGroup, {"--cluster", "--policy", "--workers", "--node-pools"}},
      {kFailuresGroup, {"--max-attempts", "--backoff"}},
      {"Resuming a run", {"--resume", "--leftovers", "--leftover-wait"}},
      {kOutputGroup, {"--store", "--status-port"}}};
  for (const std::unique_ptr<cluster_adapter::ClusterKind>& kind : o->kinds.all()) {
    groups.push_back({"With --cluster " + kind->name(), {}});
  }
  set_help_groups(*cmd, groups);
  set_help_examples(
      *cmd,
      {{"10,000 units in 40 ranges on 4 local processes, with the live page on a free port",
        "millrace run --cluster local --store out/runs.db --name first --span 0:9999 --partitioner uniform "
        "--range-count 40 --workers 4 --status-port 0 --command 'examples/worker.sh {first} {count}'"},
       {"What a stored plan chose (its comparison id, from `millrace runs`)",
        "millrace run --store out/runs.db --name planned --plan 1 --command 'examples/worker.sh {first} {count}'"},
       {"Carry on a run a killed millrace left, waiting for the attempts it left running",
        "millrace run --store out/runs.db --resume first --leftovers wait "
        "--command 'examples/worker.sh {first} {count}'"}});
  cmd->callback([o, cmd] {
    if (!o->session.resume.empty()) refuse_ignored_by_resume(*cmd, o->kinds);
    if (!o->plan.empty()) take_chosen_plan(*o);
    if (!o->model_path.empty()) {
      if (!o->model) o->model = data::CostModel::load(o->model_path);
      o->session.noise = o->model->noise();  // the ETA's band and each range's
      o->session.with_model = true;
    }
    o->session.order = scheduler::queue_order_from_string(o->order);
    if (o->session.order == scheduler::QueueOrder::kLongestFirst && !o->model && o->session.resume.empty()) {
      throw data::Error("--order lpt", "hands out the longest predicted ranges first: give the cost model (--model)");
    }
    if (!o->ranges_file.empty()) {
      o->listed = partitioners::read_ranges_file(o->ranges_file);
      const data::Range span = o->listed->span();
      o->session.span = std::to_string(span.first) + ":" + std::to_string(span.last());
      o->session.partitioner = "ranges file " + o->ranges_file;
    }
    // The report of a run that is over: its summary as `show` prints it.
    const auto report = [](const data::TraceStore& store, std::int64_t run_id) {
      print_stored_run(store, run_id, std::cout);
    };
    cluster_adapter::RealRunSession(o->session, o->kinds).run([&] { return plan_items(*o); }, report);
  });
}

}  // namespace millrace::cli
