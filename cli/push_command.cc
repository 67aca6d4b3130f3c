// `millrace push`: writes a plan into a stellar-style Redis work queue (the `ranges` list, in
// the order workers will take it), optionally reordered (tip first, longest predicted first by
// a fitted cost model, oldest first) and recorded in the trace store as the run `watch` follows.
// The plan is END/COUNT lines, as `millrace partition --format end-count` writes them ('#' lines
// are comments).
// `push --resume RUN` puts back a recorded run's ranges the queue lost (a Redis restarted without
// persistence): those with no succeeded attempt in the store and in no list of the queue, in the
// run's plan order (what `watch` says to run when it finds ranges in no list).
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/help_layout.h"
#include "cli/option_checks.h"
#include "cli/redis_options.h"
#include "cli/run_prediction.h"
#include "cluster_adapter/redis/redis_queue.h"
#include "data/cost_model.h"
#include "data/error.h"
#include "data/redaction.h"
#include "data/importers/fields.h"
#include "data/importers/stellar_trace.h"
#include "data/trace_store.h"
#include "scheduler/work_queue.h"

namespace millrace::cli {

namespace {

struct PushOptions {
  std::string redis;
  std::string plan = "-";
  std::string order = "plan";
  std::string model_path;
  int workers = 0;  // --workers: the pool's size, for the makespan predicted with --model
  std::string store_path;
  std::string run_name;
  std::string resume;  // a recorded run whose lost ranges are pushed back
  bool append = false;
  cluster_adapter::RedisQueueNames names;
};

std::vector<data::WorkItem> read_plan(const std::string& path) {
  std::ifstream file;
  if (path != "-") {
    file.open(path);
    if (!file) throw data::Error(path, "cannot read the plan");
  }
  std::istream& in = path == "-" ? std::cin : file;
  const std::string name = path == "-" ? "stdin" : path;
  std::vector<data::WorkItem> items;
  std::string line;
  for (std::size_t n = 1; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line.front() == '#') continue;  // a comment ("# overlap N", as partition writes)
    const data::Range range = data::importers::parse_end_count(line, name + ":" + std::to_string(n));
    items.push_back(data::importers::end_count_item(range));
  }
  if (items.empty()) throw data::Error(name, "the plan has no END/COUNT lines");
  return items;
}

// The plan's items in the order workers should take them.
std::vector<data::WorkItem> in_queue_order(std::vector<data::WorkItem> items, const PushOptions& options,
                                           const data::CostModel* model) {
  if (model != nullptr) {
    for (data::WorkItem& item : items) item.predicted = model->predict(*item.range);
  } else if (options.order == "lpt") {
    throw data::Error("--order lpt", "needs --model (a cost model from `millrace fit`)");
  }
  const scheduler::PlannedWork plan(items, options.plan == "-" ? "stdin" : options.plan);
  scheduler::WorkQueue queue(plan, scheduler::queue_order_from_string(options.order));
  for (std::size_t i = 0; i < items.size(); ++i) queue.push(i);
  std::vector<data::WorkItem> out;
  while (!queue.empty()) out.push_back(items[queue.pop_first([](std::size_t) { return true; })]);
  return out;
}

void run_push(const PushOptions& options) {
  std::optional<data::CostModel> model;
  if (!options.model_path.empty()) model = data::CostModel::load(options.model_path);
  const std::vector<data::WorkItem> items = in_queue_order(read_plan(options.plan), options, model ? &*model : nullptr);
  std::vector<std::string> end_counts;
  for (const data::WorkItem& item : items) end_counts.push_back(item.id);
  // Everything that can be refused is, before anything is pushed.
  std::optional<data::TraceStore> store;
  nlohmann::json parameters{{"order", options.order}, {"redis", data::redact(options.redis)}};
  if (!options.store_path.empty()) {
    store.emplace(data::TraceStore::open(options.store_path));
    store->check_new_run_name(options.run_name, "--run");
    if (model) add_model_parameters(parameters, items, *model, options.model_path, options.workers);
  }
  cluster_adapter::RedisConnection redis(options.redis);
  cluster_adapter::RedisQueue(redis, options.names).push(end_counts, options.append);
  if (store) {
    data::Run run;
    run.name = options.run_name;
    run.source = data::RunSource::kReal;
    run.units = "ledgers";
    run.policy = "fixed-pool";
    run.parameters = parameters.dump();
    const std::int64_t id = store->add_run(run, items, {});
    std::cerr << "run " << id << " '" << options.run_name << "' recorded in " << options.store_path << "\n";
  }
  std::cerr << end_counts.size() << " ranges pushed to " << options.names.ranges << " on " << options.redis << "\n";
}

void run_resume(const PushOptions& options) {
  if (options.store_path.empty()) throw data::Error("--resume " + options.resume, "needs --store (where the run is recorded)");
  const data::TraceStore store = data::TraceStore::open(options.store_path);
  const std::int64_t id = store.find_run(options.resume);
  std::set<std::string> succeeded;
  for (const data::Attempt& a : store.attempts(id)) {
    if (a.outcome == data::Outcome::kSucceeded) succeeded.insert(a.item_id);
  }
  cluster_adapter::RedisConnection redis(options.redis);
  cluster_adapter::RedisQueue queue(redis, options.names);
  const std::set<std::string> listed = cluster_adapter::listed_ranges(queue.snapshot());
  std::vector<std::string> lost;
  std::size_t done = 0, queued = 0;
  for (const data::WorkItem& item : store.items(id)) {
    if (succeeded.count(item.id)) {
      ++done;
    } else if (listed.count(item.id)) {
      ++queued;
    } else {
      lost.push_back(item.id);
    }
  }
  if (!lost.empty()) queue.push(lost, true);
  std::cerr << lost.size() << " ranges of run " << id << " '" << options.resume << "' pushed back to "
            << options.names.ranges << " on " << options.redis << " (" << done << " succeeded, " << queued
            << " still in a list)\n";
}

}  // namespace

void add_push_command(CLI::App& app) {
  auto options = std::make_shared<PushOptions>();
  CLI::App* cmd = app.add_subcommand("push", "Write a plan (END/COUNT lines) into a Redis work queue");
  cmd->add_option("--redis", options->redis, kRedisAddressHelp)->required();
  cmd->add_option("--plan", options->plan, "END/COUNT lines, tip first ('-': stdin)")->capture_default_str();
  cmd->add_option("--order", options->order, "plan (as given), tip-first (highest END first), lpt (longest predicted first, needs --model)")
      ->capture_default_str();
  cmd->add_option("--model", options->model_path,
                  "cost model JSON: each range's prediction and band, kept with the run (--store), for --order lpt, "
                  "watch's ETA and predicted vs actual");
  cmd->add_option("--workers", options->workers,
                  "the pool's size (workers taking ranges at once): with --model and --store, the run keeps the "
                  "makespan its plan predicts on them")
      ->transform(whole_number(1));
  cmd->add_option("--store", options->store_path, "also record the plan as a run in this trace store");
  cmd->add_option("--run", options->run_name, "name of that run")->capture_default_str();
  cmd->add_flag("--append", options->append, "add to a queue that already holds ranges");
  cmd->add_option("--resume", options->resume,
                  "push back the ranges of this recorded run (name or id, needs --store) that have no succeeded "
                  "attempt and are in no list of the queue")
      ->excludes("--plan", "--order", "--model", "--workers", "--run", "--append");
  add_redis_names_options(*cmd, options->names);
  set_help_groups(*cmd, {{"What to push", {"--redis", "--plan", "--order", "--append", "--resume"}},
                         {kModelGroup, {"--model", "--workers"}},
                         {"The run it records", {"--store", "--run"}}});
  set_help_examples(
      *cmd,
      {{"A plan into the queue, longest predicted first, recorded as run 'live'",
        "millrace push --redis 127.0.0.1:6390 --plan out/top8.txt --order lpt --model out/dropin-model.json "
        "--workers 2 --store out/dropin.db --run live"},
       {"Push back what run 'live' has not finished and no list holds",
        "millrace push --redis 127.0.0.1:6390 --store out/dropin.db --resume live"}});
  cmd->callback([options] {
    if (!options->resume.empty()) return run_resume(*options);
    if (!options->store_path.empty() && options->run_name.empty()) throw data::Error("push", "--store needs --run");
    if (options->workers > 0 && (options->model_path.empty() || options->store_path.empty())) {
      throw data::Error("--workers", "predicts the run's makespan: give the cost model (--model) and --store");
    }
    run_push(*options);
  });
}

}  // namespace millrace::cli
