// `millrace watch`: follows a live run through a stellar-style Redis work queue, recording each
// finished try into the trace store as it is seen and re-queueing ranges whose worker stopped
// heartbeating (cluster_adapter/redis/redis_watch.h), until every range succeeded or failed;
// with --status-port, served as a real run's status (/status, /metrics, the live page at /).
#include <iostream>
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/help_layout.h"
#include "cli/option_checks.h"
#include "cli/redis_options.h"
#include "cli/run_prediction.h"
#include "cli/run_summary_text.h"
#include "cluster_adapter/redis/redis_watch.h"
#include "cluster_adapter/redis/watch_report.h"
#include "data/cost_model.h"
#include "data/error.h"
#include "data/redaction.h"
#include "data/importers/fields.h"
#include "data/importers/stellar_trace.h"
#include "data/typed_duration.h"

namespace millrace::cli {

namespace {

struct WatchCommandOptions {
  std::string redis;
  std::string store_path;
  std::string run_name;
  data::Micros poll = data::kMicrosPerSecond;
  int status_port = -1;  // -1: no status server
  std::string model_path;  // --model: predictions of a run planned from the queue
  int workers = 0;         // --workers: the pool's size, for its predicted makespan
  cluster_adapter::RedisQueueNames names;
};

// The run `push` recorded under this name, or a new one planned from what the queue holds now
// (every range in any list, tip first).
std::int64_t find_or_plan_run(data::TraceStore& store, cluster_adapter::RedisQueue& queue,
                              const WatchCommandOptions& options, const data::CostModel* model) {
  for (const data::Run& run : store.runs()) {
    if (run.name != options.run_name) continue;
    if (model != nullptr) {
      throw data::Error("--model " + options.model_path,
                        "run '" + options.run_name + "' is already recorded (by push): its predictions are the ones "
                        "it was recorded with (give --model to push); drop --model and --workers here");
    }
    return store.find_run(options.run_name);
  }
  const cluster_adapter::QueueSnapshot s = queue.snapshot();
  std::map<std::int64_t, data::WorkItem, std::greater<>> items;
  auto add = [&](const std::string& entry) {
    const data::Range range = data::importers::parse_end_count(entry.substr(0, entry.find('|')), options.redis);
    items.emplace(range.last(), data::importers::end_count_item(range));
  };
  for (const auto* list : {&s.ranges, &s.in_progress, &s.succeeded, &s.failed}) {
    for (const std::string& entry : *list) add(entry);
  }
  if (items.empty()) throw data::Error(options.redis, "the queue holds no ranges to watch");
  std::vector<data::WorkItem> plan;
  for (auto& [last, item] : items) plan.push_back(item);
  nlohmann::json parameters{{"redis", data::redact(options.redis)}, {"planned_from", "queue contents"}};
  if (model != nullptr) {
    for (data::WorkItem& item : plan) item.predicted = model->predict(*item.range);
    add_model_parameters(parameters, plan, *model, options.model_path, options.workers);
  }
  data::Run run;
  run.name = options.run_name;
  run.source = data::RunSource::kReal;
  run.units = "ledgers";
  run.policy = "fixed-pool";
  run.parameters = parameters.dump();
  return store.add_run(run, plan, {});
}

// The shortest pause between looks at the queue: less would poll Redis without rest.
constexpr data::Micros kShortestPoll = data::kMicrosPerMilli;

void run_watch(const WatchCommandOptions& options) {
  if (options.poll < kShortestPoll) {
    throw data::Error("--poll " + data::typed_duration_text(options.poll), "is shorter than " + data::typed_duration_text(kShortestPoll));
  }
  cluster_adapter::RedisConnection redis(options.redis);  // a malformed address fails before the store is made
  std::optional<data::CostModel> model;  // and so does an unreadable model
  if (!options.model_path.empty()) model = data::CostModel::load(options.model_path);
  data::TraceStore store = data::TraceStore::open(options.store_path);
  std::optional<cluster_adapter::StatusServer> server;
  if (options.status_port >= 0) {
    server.emplace(options.status_port);
    std::cerr << "millrace: status on http://127.0.0.1:" << server->port() << "/status\n";
  }
  cluster_adapter::RedisQueue queue(redis, options.names);
  const cluster_adapter::WatchOptions watch_options{.poll = options.poll};
  const std::int64_t run_id = cluster_adapter::retry_while_redis_down(
      queue, std::cerr, watch_options.backoff, [&] { return find_or_plan_run(store, queue, options, model ? &*model : nullptr); });
  cluster_adapter::RedisWatch watch(queue, store, run_id, std::cerr);
  std::optional<cluster_adapter::WatchReport> report;
  if (server) {
    report.emplace(store.items(run_id), store.attempts(run_id), store.run(run_id), data::redact(options.redis));
    watch.set_step_observer([&](const cluster_adapter::WatchStep& step) {
      report->observe(step);
      server->publish(report->documents());
    });
  }
  watch.run(watch_options);
  std::cout << "run " << run_id << " '" << options.run_name << "': " << watch.recorded() << " attempts recorded, "
            << watch.requeued() << " ranges re-queued\n";
  print_stored_run(store, run_id, std::cout);
}

}  // namespace

void add_watch_command(CLI::App& app) {
  auto options = std::make_shared<WatchCommandOptions>();
  CLI::App* cmd = app.add_subcommand("watch", "Follow a live run through its Redis work queue into the trace store");
  cmd->add_option("--redis", options->redis, kRedisAddressHelp)->required();
  cmd->add_option("--store", options->store_path, "trace store file")->required();
  cmd->add_option("--run", options->run_name, "run name (as given to push; planned from the queue when new)")
      ->required();
  cmd->add_option("--poll", options->poll, "time between looks at the queue (250ms, 2s)")
      ->default_str("1s")
      ->transform(micros());
  cmd->add_option("--status-port", options->status_port,
                  "serve /status, /metrics, /healthz and the live page (/) on 127.0.0.1:PORT (0: any free port)")
      ->transform(tcp_port());
  cmd->add_option("--model", options->model_path,
                  "cost model JSON: a run planned from the queue keeps each range's prediction and band, for the ETA "
                  "and predicted vs actual (a run push recorded keeps push's)");
  cmd->add_option("--workers", options->workers,
                  "the pool's size (workers taking ranges at once): with --model, the run keeps the makespan its "
                  "plan predicts on them")
      ->transform(whole_number(1));
  add_redis_names_options(*cmd, options->names);
  set_help_groups(*cmd, {{"What to watch", {"--redis", "--poll"}},
                         {"The run it records", {"--store", "--run"}},
                         {kModelGroup, {"--model", "--workers"}},
                         {kOutputGroup, {"--status-port"}}});
  set_help_examples(
      *cmd, {{"Record the run push started, looking at the queue 5 times a second",
              "millrace watch --redis 127.0.0.1:6390 --store out/dropin.db --run live --poll 200ms"},
             {"With the live page and /metrics on port 9090",
              "millrace watch --redis 127.0.0.1:6390 --store out/dropin.db --run live --status-port 9090"}});
  cmd->callback([options] {
    if (options->workers > 0 && options->model_path.empty()) {
      throw data::Error("--workers", "predicts the run's makespan: give the cost model (--model)");
    }
    run_watch(*options);
  });
}

}  // namespace millrace::cli
