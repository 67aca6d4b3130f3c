#include "cluster_adapter/realtime/real_run_session.h"

#include <unistd.h>

#include <iostream>
#include <utility>

#include <nlohmann/json.hpp>

#include "cluster_adapter/realtime/backlog_status.h"
#include "cluster_adapter/realtime/live_status.h"
#include "cluster_adapter/realtime/real_run_loop.h"
#include "data/error.h"
#include "data/kept_prediction.h"
#include "data/redaction.h"

namespace millrace::cluster_adapter {

namespace {

using nlohmann::json;

constexpr int kLiveBusyTimeoutMs = 100;
constexpr data::Micros kPublishEvery = 100 * data::kMicrosPerMilli;

// What --resume needs to rebuild the run, kept in the run's parameters.
json run_parameters(const RealRunOptions& o, const ClusterKind& kind) {
  json p = json::object();
  kind.save(p);
  p["cluster"] = kind.name();
  p["workers"] = o.common.workers;
  p["max_attempts"] = o.max_attempts;
  p["backoff_us"] = data::micros_from_seconds(o.backoff_s);
  p["order"] = scheduler::to_string(o.order);
  if (o.with_model) p["noise"] = o.noise.to_json();
  if (!o.chosen_plan.is_null()) p["plan"] = o.chosen_plan;
  if (!o.predicted_makespan.is_null()) p["predicted"] = o.predicted_makespan;
  p.update(scheduler::to_json(o.autoscale));
  return p;
}

ClusterKind& load_parameters(const data::Run& run, const ClusterKinds& kinds, RealRunOptions& o) {
  const std::string input = "run " + std::to_string(run.id);
  if (run.source != data::RunSource::kReal) throw data::Error(input, "was not a real run, it cannot be resumed");
  try {
    json p = json::parse(run.parameters);
    ClusterKind& kind = kinds.find(p.at("cluster").get<std::string>(), input);
    kind.load(p);
    const int recorded_workers = p.at("workers").get<int>();
    if (o.workers_given && o.common.workers != recorded_workers) {
      std::cerr << "millrace: " << input << ": --workers " << o.common.workers << " applies to this session (the run "
                << "was started with " << recorded_workers << ", which a resume without --workers keeps)\n";
    } else {
      o.common.workers = recorded_workers;
    }
    o.max_attempts = p.at("max_attempts").get<int>();
    o.backoff_s = data::seconds_from_micros(p.at("backoff_us").get<data::Micros>());
    o.autoscale = scheduler::autoscale_settings_from(p);  // runs recorded before it: the defaults
    const scheduler::QueueOrder recorded_order = scheduler::queue_order_from_string(p.value("order", "plan"));
    if (o.order_given && o.order != recorded_order) {
      throw data::Error(input, std::string("hands out its ranges in ") + scheduler::to_string(recorded_order) +
                                   " order, which a resume keeps: drop --order " + scheduler::to_string(o.order));
    }
    o.order = recorded_order;
    o.common.policy = run.policy;
    if (std::optional<data::DurationNoise> noise = data::kept_noise(p, input)) o.noise = *noise;  // the ETA's band
    return kind;
  } catch (const json::exception& e) {
    throw data::Error(input, std::string("parameters cannot be read to resume: ") + e.what());
  }
}

// --leftovers and --leftover-wait: for a --resume only; "end" is refused by a kind whose
// resumed runs always adopt what a dead session left.
void check_leftover_options(const RealRunOptions& o, const ClusterKind& kind) {
  if (o.resume.empty() && !o.leftovers.empty()) {
    throw data::Error("--leftovers " + o.leftovers, "applies to --resume only: a new run has no leftovers");
  }
  if (o.leftover_wait_s > 0 && o.leftovers != "wait") {
    throw data::Error("--leftover-wait", "applies to --leftovers wait only");
  }
  if (std::string adopted = kind.adopts_leftovers(); o.leftovers == "end" && !adopted.empty()) {
    throw data::Error("--leftovers end", adopted);
  }
}

// Autoscale grows its pool to meet a deadline: it needs one, and the other policies take none.
void check_autoscale(const RealRunOptions& o) {
  const scheduler::AutoscaleSettings& a = o.autoscale;
  if (o.common.policy == "autoscale" && a.deadline == 0) {
    throw data::Error("--policy autoscale", "needs --deadline, the wanted end of the run from its start (e.g. 48h)");
  }
  if (o.common.policy != "autoscale" &&
      (a.deadline > 0 || a.scale_up_delay > 0 || a.min_workers != scheduler::AutoscaleSettings{}.min_workers)) {
    throw data::Error("--policy " + o.common.policy,
                      "--deadline, --scale-up-delay and --min-workers apply to --policy autoscale only");
  }
}

}  // namespace

RealRunSession::RealRunSession(RealRunOptions& options, const ClusterKinds& kinds)
    : o_(options), kinds_(kinds), store_(data::TraceStore::open(options.common.store_path)) {
  // Listening first: a port that cannot be had stops the run before anything is recorded.
  if (o_.status_port >= 0) {
    server_.emplace(o_.status_port);
    std::cerr << "millrace: status on http://127.0.0.1:" << server_->port() << "/status\n";
  }
  // A live run never blocks long on another process's lock: its writes wait in memory.
  store_.set_busy_timeout(kLiveBusyTimeoutMs);
  writes_.emplace(store_, &std::cerr);
}

void RealRunSession::run(const PlanItems& plan, const ReportRun& report_run) {
  open_or_resume(plan);
  open_cluster();
  build_scheduler();
  drive();
  conclude(report_run);
}

void RealRunSession::open_or_resume(const PlanItems& plan) {
  if (!o_.resume.empty()) {
    run_id_ = store_.find_run(o_.resume);
    kind_ = &load_parameters(store_.run(run_id_), kinds_, o_);
    check_leftover_options(o_, *kind_);
    items_ = store_.items(run_id_);
  } else {
    kind_ = &kinds_.find(o_.cluster, "--cluster");
    check_leftover_options(o_, *kind_);
    if (o_.span.empty() || o_.partitioner.empty()) {
      throw data::Error("millrace run", "--span and --partitioner are required unless --resume is given");
    }
    kind_->check(o_.common);
    for (const std::unique_ptr<ClusterKind>& other : kinds_.all()) {
      if (other.get() != kind_) other->refuse_elsewhere();
    }
    if (o_.common.policy.empty()) o_.common.policy = kind_->default_policy();
    check_autoscale(o_);
    data::Run record;
    record.name = o_.name.empty() ? store_.unused_run_name("run") : o_.name;
    store_.check_new_run_name(record.name);  // before planning: a taken name is refused at once
    items_ = plan();
    kind_->check_plan(items_);
    record.source = data::RunSource::kReal;
    record.units = o_.units;
    record.partitioner = o_.partitioner;
    record.policy = o_.common.policy;
    record.started = clock_.now();
    record.parameters = run_parameters(o_, *kind_).dump();
    writes_->add([&](data::TraceStore& s) { run_id_ = s.add_run(record, items_, {}); });
    writes_->drain();
  }
  owner_.emplace(*writes_, run_id_, clock_.now(), std::cerr);
  input_ = "run " + std::to_string(run_id_);
}

void RealRunSession::open_cluster() {
  shutdown_.emplace();
  const data::Run run = store_.run(run_id_);
  prediction_ = data::to_json(data::kept_makespan_prediction(json::parse(run.parameters, nullptr, false)));
  target_ = kind_->open(ClusterSession{o_.common, run, clock_, *shutdown_});
  if (const ProcessTrees* trees = target_->process_trees()) owner_->set_trees(*trees);
  target_->set_tree_observer(
      [this](const data::WorkItem& item, int attempt, const std::string& worker, const TreeIdentity& tree) {
        owner_->record_tree(item, attempt, worker, tree, clock_.now());
      });
  // What earlier sessions left running ends (or, asked to, is waited for and its outcome
  // recorded) before any range runs again.
  LeftoverHandling leftovers;
  leftovers.wait = o_.leftovers == "wait";
  leftovers.attempt_timeout = target_->attempt_timeout();
  leftovers.wait_limit = data::micros_from_seconds(o_.leftover_wait_s);
  leftovers.interrupted = [this] { return shutdown_->requested(); };
  owner_->sweep(clock_, leftovers);
  recorded_ = store_.attempts(run_id_);
  std::cerr << "millrace: " << input_ << ": " << items_.size() << " items, " << data::redact(target_->where())
            << "\n";
}

void RealRunSession::build_scheduler() {
  scheduler::SchedulerOptions options;
  options.plan_name = input_;
  options.policy = o_.common.policy;
  options.params = scheduler::policy_params(o_.common.workers, o_.autoscale);
  options.retry.max_attempts = o_.max_attempts;
  options.retry.backoff = data::micros_from_seconds(o_.backoff_s);
  options.order = o_.order;
  if (o_.resume.empty()) {
    scheduler_ = std::make_unique<scheduler::Scheduler>(items_, options, target_->cluster(), clock_);
  } else {
    scheduler::SchedulerSnapshot snapshot = resume_snapshot(items_, recorded_, options.retry);
    target_->add_survivors(snapshot);
    scheduler_ = std::make_unique<scheduler::Scheduler>(items_, options, target_->cluster(), clock_, snapshot);
    target_->reattach(scheduler_->plan(), snapshot);
  }
  recorder_.emplace(*writes_, run_id_, items_, recorded_, o_.noise);
  scheduler_->set_observer([this](scheduler::AttemptHandle, const data::Attempt& a) {
    recorder_->observe(a);
    timeline_.observe(a);
  });
}

// Publishing walks every item: at most every kPublishEvery (and at the end), so an attempt
// costs the same whatever the size of the plan. A report skipped as too soon is owed: a timer
// wakes the loop when it is due, so what changed (a lease granted) shows within kPublishEvery
// even if nothing else happens until then.
void RealRunSession::report() {
  if (clock_.now() - published_ < kPublishEvery && !scheduler_->finished() && !scheduler_->stopped()) {
    if (!std::exchange(publish_owed_, true)) clock_.call_at(published_ + kPublishEvery, [] {});
    return;
  }
  publish_owed_ = false;
  scheduler::StatusReport status = scheduler_->status();
  recorder_->settle_given_up(status);
  const int slots = o_.common.workers;
  if (server_) {
    json document = scheduler::to_json(status);
    document["run"] = {{"id", run_id_}, {"cluster", kind_->name()}, {"where", target_->where()}};
    add_live_figures(document, status,
                     LiveFigures{recorder_->remaining().eta(slots), slots, recorder_->remaining_predicted(),
                                 timeline_.to_json(), prediction_},
                     [this](const std::string& item, int attempt) { return target_->attempt_logs(item, attempt); });
    if (json cluster = target_->status_json(status.at); !cluster.is_null()) document["cluster"] = std::move(cluster);
    const BacklogState backlog = writes_->state();
    document["store"] = to_json(backlog);
    PrometheusWriter store_metrics;
    write_metrics(store_metrics, backlog);
    server_->publish({document.dump(), prometheus_text(recorder_->metrics(status, slots)) + store_metrics.text() +
                                           target_->metrics_text(status.at)});
  }
  progress_->update(Progress{static_cast<std::int64_t>(status.num_items - status.num_remain),
                             static_cast<std::int64_t>(status.num_items),
                             static_cast<std::int64_t>(status.jobs_in_progress.size()),
                             static_cast<std::int64_t>(status.jobs_failed.size()), recorder_->remaining_predicted(),
                             slots, recorder_->remaining().eta(slots)});
  published_ = clock_.now();
}

void RealRunSession::record_node_arrivals() {
  std::optional<NodeArrivalNews> news = target_->node_arrival_news();
  if (!news) return;
  writes_->add([this, news = std::move(*news)](data::TraceStore& s) {
    if (!news.nodes.empty()) s.put_node_arrivals(run_id_, news.nodes);
    s.set_node_arrivals_unrecorded(run_id_, news.unrecorded);
  });
}

void RealRunSession::drive() {
  const bool terminal = isatty(o_.report_to == &std::cerr ? STDERR_FILENO : STDOUT_FILENO) == 1;
  progress_.emplace(*o_.report_to, terminal);
  auto step = [&] {
    if (shutdown_->requested()) scheduler_->stop();
    writes_->retry();
    owner_->heartbeat(clock_.now());
    report();
    trouble_ = target_->trouble();
    record_node_arrivals();
  };
  scheduler_->start();
  RealRunLoop loop(clock_, target_->cluster());
  loop.run_until([&] { return scheduler_->finished() || scheduler_->stopped() || !trouble_.empty(); }, step);
  step();
  if (trouble_.empty()) target_->flush(scheduler_->finished());
  progress_->finish();
  if (scheduler_->finished()) writes_->add([&](data::TraceStore& s) { s.set_run_ended(run_id_, clock_.now()); });
  owner_->release();
  writes_->drain();
}

void RealRunSession::conclude(const ReportRun& report_run) {
  const scheduler::StatusReport status = scheduler_->status();
  const std::string again = "; continue with `millrace run --store " + o_.common.store_path + " --resume " +
                            std::to_string(run_id_) + "`";
  if (!trouble_.empty()) {
    throw data::Error(input_, trouble_ + ": stopped with " + std::to_string(status.num_items - status.num_succeeded) +
                                  " items not succeeded, " + std::to_string(status.jobs_in_progress.size()) +
                                  " of them left running in the cluster" + again);
  }
  if (!scheduler_->finished()) {
    throw data::Error(input_, "interrupted with " + std::to_string(status.num_items - status.num_succeeded) +
                                  " items not succeeded" + again);
  }
  *o_.report_to << input_ << ": " << status.num_succeeded << "/" << status.num_items << " items succeeded\n";
  report_run(store_, run_id_);
  if (scheduler_->run_failed()) {
    throw data::Error(input_, std::to_string(status.jobs_failed.size()) + " items failed, " + target_->where());
  }
}

}  // namespace millrace::cluster_adapter
