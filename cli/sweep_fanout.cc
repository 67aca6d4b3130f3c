#include "cli/sweep_fanout.h"

#include <iostream>
#include <map>
#include <memory>

#include "cli/cluster_kinds.h"
#include "cli/option_checks.h"
#include "cli/sweep_bundle.h"
#include "cluster_adapter/realtime/real_run_session.h"
#include "data/error.h"
#include "sim/sweep_shards.h"

namespace millrace::cli {

namespace {

constexpr int kMaxShardReplicas = 1000;  // a completion's results stay within the lease API's 1 MiB

std::string shard_id(std::size_t index) { return "shard-" + std::to_string(index); }

// One batch: the shards of the comparisons of `specs` as the run `name` on the pool, numbered
// across them; each comparison's replica results in task order.
std::vector<std::vector<sim::ReplicaResult>> run_on_pool(SweepOptions& o, const std::string& bundle_sha256,
                                                         const std::string& store, const std::string& name,
                                                         const std::vector<sim::ComparisonSpec>& specs) {
  std::vector<data::WorkItem> items;
  std::vector<std::vector<sim::Shard>> shards;  // by comparison
  std::map<std::string, int> replicas_of;       // by item id
  for (const sim::ComparisonSpec& spec : specs) {
    const sim::ComparisonSelection selection = sim::selection_of(spec);
    for (const sim::Shard& shard : shards.emplace_back(sim::shards_of(spec, o.shard_replicas))) {
      data::WorkItem& item = items.emplace_back();
      item.id = shard_id(items.size() - 1);
      item.range = data::Range{static_cast<std::int64_t>(items.size() - 1), 1};
      item.type = "shard";
      item.payload = sim::payload_of({bundle_sha256, selection, shard});
      replicas_of[item.id] = shard.replicas;
    }
  }
  o.exchange->expect_results([replicas_of](const std::string& id, const nlohmann::json& results) {
    auto found = replicas_of.find(id);
    if (found == replicas_of.end()) throw data::Error(id, "is no shard of this sweep");
    sim::replica_results_from_json(results, static_cast<std::size_t>(found->second), "results");
  });
  cluster_adapter::RealRunOptions session;
  session.cluster = "kubernetes";
  session.common.store_path = store;
  session.name = name;
  session.common.workers = o.pool_workers;
  session.common.policy = "fixed-pool";
  session.units = "shards";
  session.span = "0:" + std::to_string(items.size() - 1);
  session.partitioner = "sweep shards";
  session.max_attempts = o.max_attempts;
  session.status_port = o.status_port;
  session.report_to = &std::cerr;
  cluster_adapter::RealRunSession(session, *o.kinds)
      .run([&items] { return items; }, [](const data::TraceStore&, std::int64_t) {});
  const std::map<std::string, nlohmann::json> kept = o.exchange->results();
  o.exchange->expect_results(nullptr);
  std::vector<std::vector<sim::ReplicaResult>> out;
  std::size_t index = 0;
  for (const std::vector<sim::Shard>& mine : shards) {
    std::vector<sim::ReplicaResult>& results = out.emplace_back();
    for (const sim::Shard& shard : mine) {
      const std::string id = shard_id(index++);
      auto found = kept.find(id);
      if (found == kept.end()) throw data::Error(id, "succeeded without results (a defect: please report it)");
      for (sim::ReplicaResult& r :
           sim::replica_results_from_json(found->second, static_cast<std::size_t>(shard.replicas), id + " results")) {
        results.push_back(std::move(r));
      }
    }
  }
  return out;
}

}  // namespace

void add_sweep_options(CLI::App* cmd, SweepOptions& o) {
  o.kinds = std::make_shared<cluster_adapter::ClusterKinds>(sweep_cluster_kinds(o.exchange));
  const std::size_t before = cmd->get_options().size();
  cmd->add_option("--cluster", o.cluster,
                  "fan the simulations out over a worker pool: kubernetes (with --mode worker-pool; default: here)")
      ->check(CLI::IsMember({"kubernetes"}));
  cmd->add_option("--pool-workers", o.pool_workers, "--cluster: the pool's worker pods (not the simulated --workers)")
      ->capture_default_str()
      ->transform(whole_number(1, 100000));
  cmd->add_option("--shard-replicas", o.shard_replicas, "--cluster: replicas of one combination a shard simulates")
      ->capture_default_str()
      ->transform(whole_number(1, kMaxShardReplicas));
  cmd->add_option("--shard-attempts", o.max_attempts, "--cluster: attempts per shard, first included")
      ->capture_default_str()
      ->transform(whole_number(1, 100));
  cmd->add_option("--status-port", o.status_port,
                  "--cluster: serve the sweep's /status, /metrics and live page on 127.0.0.1:PORT (0: any free)")
      ->transform(tcp_port());
  for (const std::unique_ptr<cluster_adapter::ClusterKind>& kind : o.kinds->all()) {
    kind->add_options(*cmd, cluster_option_checks());
  }
  for (std::size_t i = before; i < cmd->get_options().size(); ++i) cmd->get_options()[i]->group(kFanOutGroup);
}

void check_fan_out(const SweepOptions& o, const CLI::App& command, const std::string& store) {
  if (o.cluster.empty()) {
    for (const CLI::Option* option : command.get_options()) {
      if (option->get_group() == kFanOutGroup && option->count() > 0) {
        throw data::Error(option->get_name(), "fans the simulations out: give --cluster kubernetes with it");
      }
    }
    return;
  }
  nlohmann::json settings;
  o.kinds->find(o.cluster, "--cluster").save(settings);
  if (settings.value("mode", "") != "worker-pool") {
    throw data::Error("--mode " + settings.value("mode", std::string()),
                      "a sweep fans out over a pool of workers: --mode worker-pool");
  }
  if (store.empty()) throw data::Error("--store", "required with --cluster: the sweep's runs of shards are recorded in it");
}

void fan_out(SweepOptions& o, const CLI::App& command, const std::string& store, sim::ComparisonSpec& spec,
             const ImpliedOptions& implied) {
  check_fan_out(o, command, store);
  if (o.cluster.empty()) return;
  const SweepBundle bundle = make_sweep_bundle(command, spec.base.scheduler.plan_name, implied);
  o.exchange->add_bundle(bundle.sha256, bundle.text);
  std::cerr << "millrace: fanning the simulations out over " << o.pool_workers << " pool workers (bundle sha256 "
            << bundle.sha256 << ", " << bundle.text.size() << " bytes)\n";
  // Each batch a run named after the sweep's bundle and its place: sweep-3f2a9c0d1e2b-1, -2, ...
  // (one count shared by the copies of the spec a plan's search makes).
  auto elsewhere = std::make_shared<sim::Elsewhere>();
  elsewhere->batch = [&o, sha = bundle.sha256, store, batches = std::make_shared<int>(0)](
                         const std::vector<sim::ComparisonSpec>& specs) {
    return run_on_pool(o, sha, store, "sweep-" + sha.substr(0, 12) + "-" + std::to_string(++*batches), specs);
  };
  elsewhere->workers = o.pool_workers;
  elsewhere->replicas_per_shard = o.shard_replicas;
  spec.elsewhere = std::move(elsewhere);
}

}  // namespace millrace::cli
