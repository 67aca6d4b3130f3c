// `millrace run`: runs a plan for real through the scheduler core on a real cluster (local
// processes, the embedded default): the span is cut by a named partitioner, each range runs
// the --command template, every finished attempt is recorded in the trace store at once, a
// status/metrics server and a progress line report on it, and `--resume RUN` continues a run
// that was interrupted or killed without re-running what already succeeded.
#include <unistd.h>

#include <iostream>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/span_option.h"
#include "cluster_adapter/local_process_cluster.h"
#include "cluster_adapter/progress_line.h"
#include "cluster_adapter/real_run_loop.h"
#include "cluster_adapter/run_recorder.h"
#include "cluster_adapter/shutdown_signal.h"
#include "cluster_adapter/status_server.h"
#include "cluster_adapter/wall_clock.h"
#include "data/cost_model.h"
#include "data/error.h"
#include "data/trace_store.h"
#include "partitioners/registry.h"
#include "scheduler/concurrency_policy.h"
#include "scheduler/scheduler.h"

namespace millrace::cli {

namespace {

using cluster_adapter::LocalProcessOptions;

struct RunOptions {
  std::string cluster = "local";
  std::string store_path;
  std::string resume;
  std::string name;
  std::string units = "units";
  std::string span;
  std::string partitioner;
  std::string model_path;
  partitioners::PartitionParams partition;
  std::string policy = "fixed-pool";
  int workers = 1;
  double timeout_s = 0;
  double kill_grace_s = 5;
  int max_attempts = 3;
  double backoff_s = 0;
  LocalProcessOptions local;
  std::string log_dir;                 // empty: STORE.logs/run-ID
  int status_port = -1;
};

// What --resume needs to rebuild the run, kept in the run's parameters.
nlohmann::json run_parameters(const RunOptions& o) {
  return {{"cluster", "local"},         {"command", o.local.command},
          {"workers", o.workers},       {"timeout_us", o.local.timeout},
          {"kill_grace_us", o.local.kill_grace}, {"max_attempts", o.max_attempts},
          {"backoff_us", data::micros_from_seconds(o.backoff_s)}, {"log_dir", o.log_dir}};
}

void load_parameters(const data::Run& run, RunOptions& o) {
  const std::string input = "run " + std::to_string(run.id);
  if (run.source != data::RunSource::kReal) throw data::Error(input, "was not a real run, it cannot be resumed");
  try {
    nlohmann::json p = nlohmann::json::parse(run.parameters);
    o.local.command = p.at("command").get<std::string>();
    o.workers = p.at("workers").get<int>();
    o.local.timeout = p.at("timeout_us").get<data::Micros>();
    o.local.kill_grace = p.at("kill_grace_us").get<data::Micros>();
    o.max_attempts = p.at("max_attempts").get<int>();
    o.backoff_s = data::seconds_from_micros(p.at("backoff_us").get<data::Micros>());
    o.log_dir = p.at("log_dir").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    throw data::Error(input, std::string("parameters cannot be read to resume: ") + e.what());
  }
  o.policy = run.policy;
}

std::vector<data::WorkItem> plan_items(const RunOptions& o) {
  partitioners::PartitionParams params = o.partition;
  params.span = parse_span(o.span);
  if (params.workers == 0) params.workers = o.workers;
  std::optional<data::CostModel> model;
  if (!o.model_path.empty()) model = data::CostModel::load(o.model_path);
  params.model = model ? &*model : nullptr;
  std::vector<data::WorkItem> items;
  for (const data::Range& range : partitioners::make_partition(o.partitioner, params).work_ranges()) {
    data::WorkItem& item = items.emplace_back();
    item.id = std::to_string(range.first) + "-" + std::to_string(range.last());
    item.range = range;
    item.predicted = model ? model->predict(range) : 0;
  }
  return items;
}

void publish(const scheduler::Scheduler& scheduler, const cluster_adapter::RunRecorder& recorder,
             cluster_adapter::StatusServer* server, cluster_adapter::ProgressLine& progress, int slots) {
  scheduler::StatusReport status = scheduler.status();
  if (server != nullptr) {
    server->publish({scheduler::to_json(status).dump(), cluster_adapter::prometheus_text(recorder.metrics(status))});
  }
  progress.update(cluster_adapter::Progress{static_cast<std::int64_t>(status.num_items - status.num_remain),
                                            static_cast<std::int64_t>(status.num_items),
                                            static_cast<std::int64_t>(status.jobs_in_progress.size()),
                                            static_cast<std::int64_t>(status.jobs_failed.size()),
                                            recorder.remaining_predicted(), slots});
}

void run(RunOptions& o) {
  data::TraceStore store = data::TraceStore::open(o.store_path);
  cluster_adapter::WallClock clock;
  std::int64_t run_id = 0;
  std::vector<data::WorkItem> items;
  std::vector<data::Attempt> recorded;
  if (!o.resume.empty()) {
    run_id = store.find_run(o.resume);
    load_parameters(store.run(run_id), o);
    items = store.items(run_id);
    recorded = store.attempts(run_id);
  } else {
    if (o.local.command.empty() || o.span.empty() || o.partitioner.empty()) {
      throw data::Error("millrace run", "--command, --span and --partitioner are required unless --resume is given");
    }
    o.local.timeout = data::micros_from_seconds(o.timeout_s);
    o.local.kill_grace = data::micros_from_seconds(o.kill_grace_s);
    cluster_adapter::CommandTemplate check(o.local.command);
    items = plan_items(o);
    data::Run record;
    record.name = o.name.empty() ? "run" : o.name;
    record.source = data::RunSource::kReal;
    record.units = o.units;
    record.partitioner = o.partitioner;
    record.policy = o.policy;
    record.started = clock.now();
    record.parameters = run_parameters(o).dump();
    run_id = store.add_run(record, items, {});
  }
  // An empty log directory in the parameters means the default, named after the run.
  o.local.log_dir = o.log_dir.empty() ? o.store_path + ".logs/run-" + std::to_string(run_id) : o.log_dir;
  std::cerr << "millrace: run " << run_id << ": " << items.size() << " items, logs in " << o.local.log_dir << "\n";

  o.local.concurrency = o.workers;
  cluster_adapter::ShutdownSignal shutdown;
  cluster_adapter::LocalProcessCluster cluster(o.local, clock, &shutdown);
  scheduler::SchedulerOptions options;
  options.plan_name = "run " + std::to_string(run_id);
  options.policy = o.policy;
  options.params.workers = o.workers;
  options.params.max_in_flight = o.workers;
  options.retry.max_attempts = o.max_attempts;
  options.retry.backoff = data::micros_from_seconds(o.backoff_s);
  std::unique_ptr<scheduler::Scheduler> scheduler;
  if (o.resume.empty()) {
    scheduler = std::make_unique<scheduler::Scheduler>(items, options, cluster, clock);
  } else {
    scheduler = std::make_unique<scheduler::Scheduler>(items, options, cluster, clock,
                                                       cluster_adapter::resume_snapshot(items, recorded, options.retry));
  }
  cluster_adapter::RunRecorder recorder(store, run_id, scheduler->items(), recorded);
  scheduler->set_observer([&recorder](scheduler::AttemptHandle, const data::Attempt& a) { recorder.observe(a); });

  std::optional<cluster_adapter::StatusServer> server;
  if (o.status_port >= 0) {
    server.emplace(o.status_port);
    std::cerr << "millrace: status on http://127.0.0.1:" << server->port() << "/status\n";
  }
  cluster_adapter::ProgressLine progress(std::cout, isatty(STDOUT_FILENO) == 1);
  auto step = [&] { publish(*scheduler, recorder, server ? &*server : nullptr, progress, o.workers); };

  scheduler->start();
  cluster_adapter::RealRunLoop loop(clock, cluster);
  loop.run_until([&] { return scheduler->finished() || (cluster.interrupted() && scheduler->in_flight() == 0); },
                 step);
  step();
  progress.finish();

  const scheduler::StatusReport status = scheduler->status();
  const std::string input = "run " + std::to_string(run_id);
  if (!scheduler->finished() || cluster.interrupted()) {
    throw data::Error(input, "interrupted with " + std::to_string(status.num_items - status.num_succeeded) +
                                 " items not succeeded; continue with `millrace run --store " + o.store_path + " --resume " +
                                 std::to_string(run_id) + "`");
  }
  store.set_run_ended(run_id, clock.now());
  std::cout << input << ": " << status.num_succeeded << "/" << status.num_items << " items succeeded\n";
  if (scheduler->run_failed()) {
    throw data::Error(input, std::to_string(status.jobs_failed.size()) + " items failed, logs in " + o.local.log_dir);
  }
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "run a plan for real (local processes), recording every attempt");
  cmd->add_option("--cluster", o->cluster, "where attempts run: local (child processes)")
      ->default_val("local")
      ->check(CLI::IsMember({"local"}));
  cmd->add_option("--store", o->store_path, "trace store (SQLite file) that records the run")->required();
  cmd->add_option("--resume", o->resume, "continue this run (id or name) from what the store recorded");
  cmd->add_option("--name", o->name, "name of the new run");
  cmd->add_option("--units", o->units, "what a unit of the span is (ledgers, blocks, ...)");
  cmd->add_option("--span", o->span, "FIRST:LAST, inclusive units to process");
  std::string names;
  for (const std::string& n : partitioners::partitioner_names()) names += (names.empty() ? "" : ", ") + n;
  cmd->add_option("--partitioner", o->partitioner, "one of: " + names);
  cmd->add_option("--model", o->model_path, "cost model JSON (from `millrace fit`) for predictions and ETA");
  cmd->add_option("--ranges", o->partition.ranges, "number of ranges");
  cmd->add_option("--range-length", o->partition.range_length, "uniform: units per range");
  cmd->add_option("--overlap", o->partition.overlap, "units each range also replays before its first");
  cmd->add_option("--align", o->partition.align, "cuts fall on multiples of this");
  std::string policies;
  for (const std::string& n : scheduler::policy_names()) policies += (policies.empty() ? "" : ", ") + n;
  cmd->add_option("--policy", o->policy, "concurrency policy: " + policies)->default_val("fixed-pool");
  cmd->add_option("--workers", o->workers, "attempts running at once (pool size)")->default_val(1);
  cmd->add_option("--command", o->local.command,
                  "command template run by /bin/sh -c per attempt; placeholders {first} {count} {last} "
                  "(inclusive) {end} (exclusive) {end_count} {id} {attempt} {payload} {type} {worker}");
  cmd->add_option("--timeout", o->timeout_s, "seconds per attempt before it is killed (0: none)");
  cmd->add_option("--kill-grace", o->kill_grace_s, "seconds between SIGTERM and SIGKILL")->default_val(5);
  cmd->add_option("--max-attempts", o->max_attempts, "attempts per item, first included")->default_val(3);
  cmd->add_option("--backoff", o->backoff_s, "seconds before the first retry (doubling)");
  cmd->add_option("--log-dir", o->log_dir, "per-attempt stdout/stderr (default STORE.logs/run-ID)");
  cmd->add_option("--status-port", o->status_port,
                  "serve /status, /metrics and /healthz on 127.0.0.1:PORT (0: any free port)");
  cmd->callback([o] { run(*o); });
}

}  // namespace millrace::cli
