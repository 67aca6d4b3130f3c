#include "cluster_adapter/local/local_kind.h"

#include <filesystem>

#include "data/error.h"
#include "data/quantity.h"
#include "data/text_excerpt.h"

namespace millrace::cluster_adapter {

namespace {

class LocalRun : public RunCluster {
 public:
  LocalRun(const LocalProcessOptions& options, const scheduler::Clock& clock, ShutdownSignal& shutdown)
      : cluster_(options, clock, &shutdown), log_dir_(options.log_dir), timeout_(options.timeout) {}
  PolledCluster& cluster() override { return cluster_; }
  std::string where() const override { return "logs in " + log_dir_; }
  const ProcessTrees* process_trees() const override { return &cluster_.trees(); }
  void set_tree_observer(TreeObserver observer) override { cluster_.set_tree_observer(std::move(observer)); }
  data::Micros attempt_timeout() const override { return timeout_; }
  std::vector<std::string> attempt_logs(const std::string& item_id, int attempt) const override {
    // Absolute: the operator reading them is rarely in millrace's working directory.
    return {std::filesystem::absolute(cluster_.log_path(item_id, attempt, "out")).string(),
            std::filesystem::absolute(cluster_.log_path(item_id, attempt, "err")).string()};
  }

 private:
  LocalProcessCluster cluster_;
  std::string log_dir_;
  data::Micros timeout_;
};

}  // namespace

void LocalKind::add_options(CLI::App& command, const OptionChecks& checks) {
  command.add_option("--command", process_.command,
                     "local: command template run by /bin/sh -c per attempt; placeholders {first} {count} {last} "
                     "(inclusive) {end} (exclusive) {end_count} {id} {attempt} {payload} {type} {worker}");
  command.add_option("--timeout", timeout_s_, "local: seconds per attempt before it is killed (0: none)")
      ->transform(checks.seconds(checks.max_duration));
  command.add_option("--kill-grace", kill_grace_s_, "local: seconds between SIGTERM and SIGKILL")
      ->default_val(5)
      ->transform(checks.seconds(checks.max_duration));
  command.add_option("--log-dir", log_dir_, "local: per-attempt stdout/stderr (default STORE.logs/run-ID)");
  command.add_option("--local-capacity", capacity_,
                     "local: what running attempts' requests may add up to, e.g. cpu=2,memory=4Gi (default: this "
                     "machine's CPUs and memory); an attempt that does not fit waits");
}

namespace {

data::Quantities capacity_of(const std::string& text) {
  return text.empty() ? machine_capacity() : data::parse_quantity_list(text, "--local-capacity");
}

}  // namespace

void LocalKind::check_plan(const std::vector<data::WorkItem>& items) const {
  const data::Quantities capacity = capacity_of(capacity_);
  const std::string origin = capacity_.empty() ? "this machine's; --local-capacity declares another" : "--local-capacity";
  for (const data::WorkItem& item : items) require_fits_machine(item, capacity, origin);
}

void LocalKind::check(RunCommon&) {
  if (process_.command.empty()) throw data::Error("millrace run", "--cluster local needs --command");
  CommandTemplate check(process_.command);
  process_.capacity = capacity_of(capacity_);
  process_.timeout = data::micros_from_seconds(timeout_s_);
  process_.kill_grace = data::micros_from_seconds(kill_grace_s_);
}

void LocalKind::save(nlohmann::json& p) const {
  p["command"] = process_.command;
  p["timeout_us"] = process_.timeout;
  p["kill_grace_us"] = process_.kill_grace;
  p["log_dir"] = log_dir_;
  p["local_capacity"] = capacity_;
}

void LocalKind::load(const nlohmann::json& p) {
  const std::string recorded = p.at("command").get<std::string>();
  // The recorded attempts ran this command: the rest of the run must too, or it is another run.
  if (!process_.command.empty() && process_.command != recorded) {
    throw data::Error("--command " + data::excerpt(process_.command),
                      "differs from the command the run was started with, " + data::excerpt(recorded) +
                          ", which its resumes keep (its recorded attempts ran it): drop --command, or start a "
                          "new run to change it");
  }
  process_.command = recorded;
  process_.timeout = p.at("timeout_us").get<data::Micros>();
  process_.kill_grace = p.at("kill_grace_us").get<data::Micros>();
  log_dir_ = p.at("log_dir").get<std::string>();
  capacity_ = p.value("local_capacity", std::string());  // runs recorded before it: this machine's
}

std::unique_ptr<RunCluster> LocalKind::open(const ClusterSession& session) {
  // An empty log directory in the parameters means the default, named after the run.
  process_.log_dir =
      log_dir_.empty() ? session.common.store_path + ".logs/run-" + std::to_string(session.run.id) : log_dir_;
  process_.concurrency = session.common.workers;
  process_.capacity = capacity_of(capacity_);
  return std::make_unique<LocalRun>(process_, session.clock, session.shutdown);
}

}  // namespace millrace::cluster_adapter
