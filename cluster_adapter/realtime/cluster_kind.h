// A cluster kind a real run can use (`millrace run --cluster NAME`): its name, its options, how
// it checks them for a new run and keeps them in the run's parameters for --resume, and the
// cluster it builds for each session of the run (RunCluster). Each kind lives in its own folder
// (local/, kubernetes/, ...) and is offered by one line of the CLI's registry (cli/cluster_kinds.cc);
// everything else about a real run (real_run_session.h) is shared.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cluster_adapter/realtime/polled_cluster.h"
#include "cluster_adapter/realtime/process_trees.h"
#include "cluster_adapter/realtime/shutdown_signal.h"
#include "data/records.h"
#include "data/time.h"
#include "scheduler/clock.h"
#include "scheduler/scheduler.h"

namespace millrace::cluster_adapter {

// Node arrivals a cluster watched for, what changed since they were last taken: the arrivals new
// or updated (e.g. now ready), and why arrivals are not recorded ("" when they are).
struct NodeArrivalNews {
  std::vector<data::NodeArrival> nodes;
  std::string unrecorded;
};

// A cluster built for one session of a run.
class RunCluster {
 public:
  virtual ~RunCluster() = default;
  virtual PolledCluster& cluster() = 0;
  // Where the attempts run (logs, API server), for the messages.
  virtual std::string where() const = 0;
  // --resume, before the scheduler exists: adds to `snapshot` attempts an earlier session left
  // running in the cluster; once it exists, re-attaches them.
  virtual void add_survivors(scheduler::SchedulerSnapshot&) {}
  virtual void reattach(const scheduler::PlannedWork&, const scheduler::SchedulerSnapshot&) {}
  // Local processes: how the session holds its attempts' process trees, and who hears of each
  // (nullptr / ignored: the attempts are not processes of this machine).
  virtual const ProcessTrees* process_trees() const { return nullptr; }
  virtual void set_tree_observer(TreeObserver) {}
  // The longest an attempt may run (0: none); a dead session's attempt awaited past it by a
  // resume (`--leftovers wait`) is ended and recorded as a timeout.
  virtual data::Micros attempt_timeout() const { return 0; }
  // Why the run cannot go on for now (empty: it can); the run then stops, its state kept.
  virtual std::string trouble() const { return ""; }
  // The run loop ended (not for trouble), the run over or stopped: lets what the cluster still
  // has to send get there.
  virtual void flush(bool /*run_over*/) {}
  // The files on this machine holding an attempt's output, for the failures the operator sees
  // (empty: the cluster keeps the output elsewhere, e.g. in its pods).
  virtual std::vector<std::string> attempt_logs(const std::string& /*item_id*/, int /*attempt*/) const { return {}; }
  // What changed of the nodes that joined the cluster while the run ran (Kubernetes), for the run's
  // record (data::NodeArrival); nullopt: nothing changed, or the cluster does not watch nodes.
  virtual std::optional<NodeArrivalNews> node_arrival_news() { return std::nullopt; }
  // The cluster's own state for GET /status ("cluster"; null: none) and GET /metrics.
  virtual nlohmann::json status_json(data::Micros /*now*/) const { return nullptr; }
  virtual std::string metrics_text(data::Micros /*now*/) const { return ""; }
};

// The checks of option values, owned by the CLI (cli/option_checks.h) so that every command
// shares one vocabulary; a kind declares its options with them.
struct OptionChecks {
  std::function<CLI::Validator(std::int64_t min, std::int64_t max)> whole_number;
  std::function<CLI::Validator(data::Micros max)> seconds;
  std::function<CLI::Validator(data::Micros max)> whole_seconds;
  std::function<CLI::Validator()> tcp_port;
  data::Micros max_duration = 0;  // the longest duration an option accepts
};

// What a kind reads (and may settle) of the options every real run has.
struct RunCommon {
  std::string store_path;
  std::string policy;  // empty: the kind's default
  int workers = 1;
};

// What a kind builds a session's cluster from.
struct ClusterSession {
  const RunCommon& common;
  const data::Run& run;
  const scheduler::Clock& clock;
  ShutdownSignal& shutdown;
};

class ClusterKind {
 public:
  virtual ~ClusterKind() = default;
  // The --cluster value, and the concurrency policy a run gets without --policy.
  virtual std::string name() const = 0;
  virtual std::string default_policy() const = 0;
  // Adds the kind's options to the `run` command (their help starts with what they apply to).
  virtual void add_options(CLI::App& command, const OptionChecks& checks) = 0;
  // A new run on this kind: checks its options before anything is recorded; may settle
  // `common.policy`. Throws data::Error naming the option.
  virtual void check(RunCommon& common) = 0;
  // A new run's planned items, before anything is recorded: throws data::Error naming an item
  // the cluster could never run (its requests larger than any machine it has).
  virtual void check_plan(const std::vector<data::WorkItem>& /*items*/) const {}
  // A new run on another kind: refuses options of this kind that would silently do nothing.
  virtual void refuse_elsewhere() const {}
  // Why a resumed run of this kind always adopts what a dead session left running, so that
  // `--leftovers end` is refused (empty: it can end it).
  virtual std::string adopts_leftovers() const { return ""; }
  // Its options a resumed run takes (load() checks them against what the run recorded, or lets
  // them win over it); any other of its options given with --resume is refused.
  virtual std::vector<std::string> resume_options() const { return {}; }
  // Its options as kept in the run's parameters (for --resume), and read back from them.
  virtual void save(nlohmann::json& parameters) const = 0;
  virtual void load(const nlohmann::json& parameters) = 0;
  // The cluster for one session of the run.
  virtual std::unique_ptr<RunCluster> open(const ClusterSession& session) = 0;
};

// The kinds a run can choose from, in the order they are offered.
class ClusterKinds {
 public:
  void add(std::unique_ptr<ClusterKind> kind);
  // Throws data::Error naming `input` and the known kinds when `name` is none of them.
  ClusterKind& find(const std::string& name, const std::string& input) const;
  std::string names() const;  // "local, kubernetes"
  const std::vector<std::unique_ptr<ClusterKind>>& all() const { return kinds_; }

 private:
  std::vector<std::unique_ptr<ClusterKind>> kinds_;
};

}  // namespace millrace::cluster_adapter
