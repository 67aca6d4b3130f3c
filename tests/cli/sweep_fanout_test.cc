// compare and plan fanned out over a worker pool (--cluster kubernetes --mode worker-pool), end
// to end on the loopback Kubernetes API test server: the pool Job's pods run as real `millrace
// sweep-worker` processes (tests/cli/sweep_worker_pods.h). The reference is the same command run
// here, without --cluster: its JSON must come back byte for byte. Also: a worker killed mid-shard
// and the worker of its retry frozen past its lease (its pod replaced) leave every shard counted
// once.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/cost_model.h"
#include "data/trace_store.h"
#include "tests/cli/cli_process.h"
#include "tests/cli/sweep_worker_pods.h"

namespace millrace {
namespace {

using cli_test::CliResult;
using cluster_adapter::FakeApiServer;
using nlohmann::json;

// Pool pods run until their worker exits.
cluster_adapter::FakeApiServerOptions pool_pods() {
  return {[](const json&) { return cluster_adapter::PodPlan{2 * data::kMicrosPerMilli, cluster_adapter::kUntilEnded}; },
          1 * data::kMicrosPerMilli};
}

class SweepFannedOut : public cli_test::CliRunTest {
 protected:
  void SetUp() override {
    CliRunTest::SetUp();
    model = (dir / "model.json").string();
    // 1 s a unit on [0, 8000), 4 s a unit on [8000, 10000).
    data::CostModel({{{0, 8000}, 0, 1e6}, {{8000, 2000}, 0, 4e6}}, "units", "synthetic").save(model);
    template_path = (dir / "sweep-pool.json").string();
    std::ofstream(template_path) << R"({"apiVersion": "batch/v1", "kind": "Job",
      "spec": {"template": {"spec": {"containers": [{"name": "sweep", "image": "millrace:test",
        "command": ["millrace", "sweep-worker"]}]}}}})";
  }

  std::string kubeconfig_for(const FakeApiServer& server) {
    std::string path = (dir / "kubeconfig").string();
    std::ofstream(path) << "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
                           "clusters:\n- name: loopback\n  cluster: {server: "
                        << server.url()
                        << "}\ncontexts:\n- name: test\n  context: {cluster: loopback, user: tester, namespace: sweeps}\n"
                           "users:\n- name: tester\n  user: {token: test-token}\n";
    return path;
  }

  // The command here, into a fresh store of its own; its stdout.
  std::string here(std::vector<std::string> args) {
    const std::string local_store = (dir / "here.db").string();
    data::TraceStore::open(local_store);
    args.insert(args.end(), {"--store", local_store});
    CliResult result = run(args);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return result.out;
  }

  // The command fanned out over `workers` pool workers on `server`, into `store`.
  std::vector<std::string> fanned(std::vector<std::string> args, const FakeApiServer& server, int workers) {
    data::TraceStore::open(store);
    args.insert(args.end(), {"--store", store, "--cluster", "kubernetes", "--mode", "worker-pool", "--kubeconfig",
                             kubeconfig_for(server), "--job-template", template_path, "--lease-address", "127.0.0.1",
                             "--lease-port", "0", "--pool-workers", std::to_string(workers), "--lease-duration", "2",
                             "--heartbeat", "0.2"});
    return args;
  }

  // Every shard of the store's run `run` succeeded exactly once; the failed attempts' reasons.
  std::vector<std::string> expect_each_shard_once(std::int64_t run, std::size_t shards) {
    data::TraceStore trace = data::TraceStore::open(store);
    std::map<std::string, int> succeeded;
    std::vector<std::string> failures;
    for (const data::Attempt& a : trace.attempts(run)) {
      if (a.outcome == data::Outcome::kSucceeded) {
        ++succeeded[a.item_id];
      } else {
        failures.push_back(a.failure_reason);
      }
    }
    EXPECT_EQ(succeeded.size(), shards);
    for (const auto& [item, count] : succeeded) EXPECT_EQ(count, 1) << item;
    return failures;
  }

  std::string model;
  std::string template_path;
};

TEST_F(SweepFannedOut, ACompareOverFourPoolWorkersPrintsTheLocalJsonByteForByte) {
  // 2 partitioners x 2 counts x 6 replicas, in shards of 2 replicas: 12 shards.
  const std::vector<std::string> compare = {"compare", "--model", model, "--partitioners", "uniform,optimal",
                                            "--range-count", "40", "--workers", "3,5", "--replicas", "6",
                                            "--fail-prob", "0.2", "--seed", "7", "--json", "--quiet"};
  const auto started = std::chrono::steady_clock::now();
  const std::string local = here(compare);
  const auto local_done = std::chrono::steady_clock::now();
  FakeApiServer server(pool_pods());
  cli_test::SweepWorkerPods pods(server, dir);
  std::vector<std::string> args = fanned(compare, server, 4);
  args.insert(args.end(), {"--shard-replicas", "2"});
  CliResult result = run(args);
  const auto fanned_done = std::chrono::steady_clock::now();
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, local);
  // For bench/README (no timing is asserted): wall time here and fanned out, per shard.
  auto ms = [](auto d) { return std::chrono::duration_cast<std::chrono::milliseconds>(d).count(); };
  std::cout << "sweep timing: here " << ms(local_done - started) << " ms, fanned out over 4 workers "
            << ms(fanned_done - local_done) << " ms, 12 shards" << std::endl;
  EXPECT_NE(result.err.find("fanning the simulations out over 4 pool workers (bundle sha256 "), std::string::npos)
      << result.err;
  EXPECT_TRUE(expect_each_shard_once(1, 12).empty());
  EXPECT_EQ(data::TraceStore::open(store).run(1).partitioner, "sweep shards");
  EXPECT_EQ(server.record().jobs_created, 1);
  EXPECT_EQ(pods.started(), 4);
  for (const auto& [pod, code] : pods.exits()) EXPECT_EQ(code, 0) << pod;
}

TEST_F(SweepFannedOut, APlanOverFourPoolWorkersAnswersAndDrawsTheLocalCurve) {
  const std::vector<std::string> plan = {"plan", "--model", model, "--partitioners", "uniform", "--range-count", "60",
                                         "--deadline", "2h", "--max-workers", "12", "--replicas", "5",
                                         "--fail-prob", "0.2", "--seed", "3", "--json", "--quiet"};
  const std::string local = here(plan);
  ASSERT_NE(local.find("\"answer\""), std::string::npos) << local;
  FakeApiServer server(pool_pods());
  cli_test::SweepWorkerPods pods(server, dir);
  CliResult result = run(fanned(plan, server, 4));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, local);
  // One run of shards per batch, each holding several counts the search asked, each run served
  // by a pool Job.
  data::TraceStore trace = data::TraceStore::open(store);
  const json curve = json::parse(result.out)["curve"];
  EXPECT_LT(trace.runs().size(), curve.size());
  EXPECT_EQ(server.record().jobs_created, static_cast<int>(trace.runs().size()));
  // Each batch's run is named after the sweep's bundle and its place in the search.
  const std::string said = "bundle sha256 ";
  const std::size_t at = result.err.find(said);
  ASSERT_NE(at, std::string::npos) << result.err;
  const std::string sha12 = result.err.substr(at + said.size(), 12);
  for (std::size_t i = 0; i < trace.runs().size(); ++i) {
    EXPECT_EQ(trace.runs()[i].name, "sweep-" + sha12 + "-" + std::to_string(i + 1));
  }
}

// A double fault on one shard: its worker killed mid-shard, then the worker its retry went to
// frozen past its lease. Each fault is made sure of: a worker is stopped while /status shows it
// holding a lease, and only taken as caught mid-shard if the lease is still held a second later
// (a completion on its way would have landed; the lease lasts 2 s from the last heartbeat). The frozen worker's pod is deleted by millrace
// when its lease expires, its Job makes a new one, and the shard's third attempt succeeds.
TEST_F(SweepFannedOut, AShardsWorkerKilledAndItsRetrysWorkerFrozenLeaveEveryShardCountedOnce) {
  // 4 shards of 12 simulations of 320,000 ranges each: about a second a shard here, longer than
  // the two heartbeats (0.4 s) millrace waits to hear from a worker whose lease expired before it
  // replaces it, so the frozen worker is replaced before the shard's third attempt can end the run.
  const std::string big = (dir / "big-model.json").string();
  data::CostModel({{{0, 800000}, 0, 1e6}}, "units", "synthetic").save(big);
  const std::vector<std::string> compare = {"compare", "--model", big, "--partitioners", "uniform", "--range-count",
                                            "320000", "--workers", "16,32", "--replicas", "24", "--fail-prob", "0.1",
                                            "--json", "--quiet"};
  const std::string local = here(compare);
  FakeApiServer server(pool_pods());
  cli_test::SweepWorkerPods pods(server, dir);
  std::vector<std::string> args = fanned(compare, server, 4);
  args.insert(args.end(), {"--shard-replicas", "12", "--status-port", "0"});
  const pid_t coordinator = start(args);
  int port = 0;
  for (int i = 0; i < 3000 && port == 0; ++i, usleep(10'000)) {
    const std::string err = cli_test::read_text(dir / "stderr");
    const std::string marker = "status on http://127.0.0.1:";
    if (auto at = err.find(marker); at != std::string::npos && err.find('\n', at) != std::string::npos) {
      port = std::atoi(err.c_str() + at + marker.size());
    }
  }
  ASSERT_NE(port, 0);
  httplib::Client status("127.0.0.1", port);
  status.set_read_timeout(2, 0);
  auto leases_held = [&] {
    auto answer = status.Get("/status");
    const json document = answer && answer->status == 200 ? json::parse(answer->body, nullptr, false) : json();
    return document.is_object() && document.contains("cluster") ? document["cluster"].value("leases", json::array())
                                                                : json::array();
  };
  auto held = [&](const std::string& id) {
    for (const json& lease : leases_held()) {
      if (lease.value("id", "") == id) return true;
    }
    return false;
  };
  // Stops the worker of a lease `wanted` picks, caught holding it mid-shard: the lease; null if
  // none was caught within a minute.
  struct Caught {
    json lease;
    pid_t pid = 0;
  };
  auto stop_mid_shard = [&](const std::function<bool(const json&)>& wanted) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < give_up) {
      usleep(5'000);
      for (const json& lease : leases_held()) {
        if (!wanted(lease)) continue;
        const pid_t pid = pods.stop_worker(lease.value("worker", ""));
        if (pid == 0) continue;
        usleep(1'000'000);
        if (held(lease.value("id", ""))) return Caught{lease, pid};
        kill(pid, SIGCONT);  // it had finished: let it go on
      }
    }
    return Caught{};
  };
  const Caught killed = stop_mid_shard([](const json&) { return true; });
  ASSERT_NE(killed.pid, 0) << cli_test::read_text(dir / "stderr");
  const std::string shard = killed.lease["item"];
  const std::string killed_pod = killed.lease["worker"];
  ASSERT_TRUE(pods.kill_worker(killed_pod));
  const Caught frozen =
      stop_mid_shard([&](const json& lease) { return lease["item"] == shard && lease["attempt"] == 2; });
  ASSERT_NE(frozen.pid, 0) << cli_test::read_text(dir / "stderr");
  const std::string frozen_pod = frozen.lease["worker"];
  CliResult result = finish(coordinator);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, local);
  const std::vector<std::string> failures = expect_each_shard_once(1, 4);
  // The killed worker's lease and the frozen one's failed; a healthy worker starved of CPU past
  // its 2 s lease on a loaded machine may lose one too, which changes nothing of the above.
  ASSERT_GE(failures.size(), 2u);
  for (const std::string& reason : failures) {
    EXPECT_TRUE(reason == "lease-expired" || reason == "lease-abandoned") << reason;
  }
  std::vector<std::string> shard_attempts;
  for (const data::Attempt& a : data::TraceStore::open(store).attempts(1)) {
    const std::string outcome = a.outcome == data::Outcome::kSucceeded ? "ok" : a.failure_reason;
    if (a.item_id == shard) shard_attempts.push_back(a.worker + " " + outcome);
  }
  ASSERT_EQ(shard_attempts.size(), 3u);
  EXPECT_EQ(shard_attempts[0], killed_pod + " lease-expired");
  EXPECT_EQ(shard_attempts[1], frozen_pod + " lease-expired");
  EXPECT_EQ(shard_attempts[2].substr(shard_attempts[2].size() - 3), " ok");
  // The frozen worker's pod was deleted while the run went on (its worker killed), and said so;
  // the killed one's ended by itself, so its Job had replaced it already.
  // (A healthy worker starved of CPU for two heartbeats past its lease would be replaced too.)
  const std::vector<std::string> deleted = server.record().pods_deleted;
  EXPECT_NE(std::find(deleted.begin(), deleted.end(), frozen_pod), deleted.end()) << frozen_pod;
  EXPECT_EQ(std::find(deleted.begin(), deleted.end(), killed_pod), deleted.end()) << killed_pod;
  EXPECT_EQ(pods.deleted(), deleted);
  const std::size_t said = result.err.find("millrace: replaced ");
  ASSERT_NE(said, std::string::npos) << result.err;
  const std::string line = result.err.substr(said, result.err.find('\n', said) - said);
  EXPECT_NE(line.find(" (pods deleted so that the Job makes new ones): "), std::string::npos) << line;
  EXPECT_NE(line.find(frozen_pod + " (its lease expired)"), std::string::npos) << line;
}

TEST_F(SweepFannedOut, FanOutOptionsWithoutClusterAndAJobPerItemModeAreRefusedNamingTheOption) {
  data::TraceStore::open(store);
  CliResult alone = run({"compare", "--model", model, "--store", store, "--pool-workers", "8"});
  EXPECT_EQ(alone.exit_code, 1);
  EXPECT_EQ(alone.err, "millrace: --pool-workers: fans the simulations out: give --cluster kubernetes with it\n");
  FakeApiServer server(pool_pods());
  CliResult job_per_item = run({"compare", "--model", model, "--store", store, "--cluster", "kubernetes",
                                "--kubeconfig", kubeconfig_for(server), "--job-template", template_path});
  EXPECT_EQ(job_per_item.exit_code, 1);
  EXPECT_EQ(job_per_item.err, "millrace: --mode job-per-item: a sweep fans out over a pool of workers: --mode worker-pool\n");
  EXPECT_EQ(server.record().jobs_created, 0);
  // A worker plan fanned out without a store to record its runs of shards in: refused before it
  // reads the model or says anything else.
  CliResult no_store = run({"plan", "--model", model, "--deadline", "4h", "--max-workers", "64", "--cluster",
                            "kubernetes", "--mode", "worker-pool", "--kubeconfig", kubeconfig_for(server),
                            "--job-template", template_path});
  EXPECT_EQ(no_store.exit_code, 1);
  EXPECT_EQ(no_store.err,
            "millrace: --store: required with --cluster: the sweep's runs of shards are recorded in it\n");
  EXPECT_EQ(server.record().jobs_created, 0);
}

// --run reads the store: the bundle carries a copy of it, and the recorded run's rows, its order
// rows and savings come back as here.
TEST_F(SweepFannedOut, ACompareReplayingARecordedRunCarriesTheStoreAndPrintsTheLocalJson) {
  ASSERT_EQ(run(run_args("true", 6, 2)).exit_code, 0);  // run 1 of trace.db, a recording to replay
  const std::string local_store = (dir / "here.db").string();
  std::filesystem::copy_file(store, local_store);
  const std::vector<std::string> compare = {"compare", "--model", model, "--run", "1", "--partitioners", "uniform",
                                            "--workers", "2,3", "--replicas", "4", "--fail-prob", "0.2", "--json",
                                            "--quiet"};
  std::vector<std::string> here_args = compare;
  here_args.insert(here_args.end(), {"--store", local_store});
  const CliResult local = run(here_args);
  ASSERT_EQ(local.exit_code, 0) << local.err;
  ASSERT_NE(local.out.find("\"savings\""), std::string::npos);
  FakeApiServer server(pool_pods());
  cli_test::SweepWorkerPods pods(server, dir);
  std::vector<std::string> args = compare;
  args.insert(args.end(), {"--store", store, "--cluster", "kubernetes", "--mode", "worker-pool", "--kubeconfig",
                           kubeconfig_for(server), "--job-template", template_path, "--lease-address", "127.0.0.1",
                           "--lease-port", "0", "--pool-workers", "2", "--shard-replicas", "2"});
  const CliResult result = run(args);
  std::string reasons;
  for (const data::Attempt& a : data::TraceStore::open(store).attempts(2)) reasons += a.failure_reason + "\n";
  ASSERT_EQ(result.exit_code, 0) << result.err << reasons;
  EXPECT_EQ(result.out, local.out);
}

// A search of several rounds, one shard a count, over 4 workers: the awaited count goes to the
// pool in one batch with the curve's counts and then with the counts the search may ask next,
// so fewer batches (the store's runs) ran than counts the search asked, and several batches held
// several counts; the JSON is the local plan's, byte for byte.
TEST_F(SweepFannedOut, APlansCountsLookedAheadGoToThePoolInTheAwaitedCountsBatch) {
  const std::vector<std::string> plan = {"plan", "--model", model, "--partitioners", "uniform", "--range-count", "60",
                                         "--deadline", "30m", "--max-workers", "40", "--replicas", "4",
                                         "--fail-prob", "0.2", "--seed", "5", "--json", "--quiet"};
  const std::string local = here(plan);
  FakeApiServer server(pool_pods());
  cli_test::SweepWorkerPods pods(server, dir);
  CliResult result = run(fanned(plan, server, 4));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, local);
  std::set<int> asked;
  const json printed = json::parse(result.out);
  for (const json& point : printed["curve"]) asked.insert(point["workers"].get<int>());
  data::TraceStore trace = data::TraceStore::open(store);
  std::set<int> sent;
  int batches_of_several = 0;
  for (const data::Run& batch : trace.runs()) {
    std::set<int> counts;  // the simulated worker counts of its shards
    for (const data::WorkItem& shard : trace.items(batch.id)) {
      counts.insert(json::parse(shard.payload)["selection"]["workers"][0].get<int>());
    }
    EXPECT_EQ(trace.items(batch.id).size(), counts.size()) << "one shard a count, each count sent once";
    batches_of_several += counts.size() > 1;
    for (int count : counts) EXPECT_TRUE(sent.insert(count).second) << count << " sent twice";
  }
  for (int count : asked) EXPECT_TRUE(sent.count(count)) << count << " asked, never sent";
  EXPECT_GE(asked.size(), 8u);
  EXPECT_LT(trace.runs().size(), asked.size());
  EXPECT_GE(batches_of_several, 2);
  std::cout << "plan fanned out: " << asked.size() << " counts asked, " << sent.size() << " sent in "
            << trace.runs().size() << " batches" << std::endl;
}

// --minimize cost searches through the same batches: the cheapest, the frontier and the curve's
// costs are the local plan's, byte for byte, in fewer batches than counts.
TEST_F(SweepFannedOut, APlanMinimizingCostFannedOutPrintsTheLocalJsonInFewerBatchesThanCounts) {
  const std::vector<std::string> plan = {"plan", "--model", model, "--partitioners", "uniform", "--range-count", "60",
                                         "--deadline", "45m", "--max-workers", "24", "--replicas", "4",
                                         "--fail-prob", "0.2", "--worker-price", "0.90", "--minimize", "cost",
                                         "--json", "--quiet"};
  const std::string local = here(plan);
  ASSERT_NE(local.find("\"cost\""), std::string::npos) << local;
  FakeApiServer server(pool_pods());
  cli_test::SweepWorkerPods pods(server, dir);
  CliResult result = run(fanned(plan, server, 4));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, local);
  EXPECT_LT(data::TraceStore::open(store).runs().size(), json::parse(result.out)["curve"].size());
}

// A plan's node search replays a recording of pods: the first 40 of the bundled pod trace
// (render and encode pods asking for CPU and memory), imported as run `pods` of `store` and of
// the store the command runs on here.
class NodePlanFannedOut : public SweepFannedOut {
 protected:
  void SetUp() override {
    SweepFannedOut::SetUp();
    const std::vector<std::string> trace = cli_test::lines_of(cli_test::read_text(MILLRACE_SOURCE_DIR "/examples/pods.csv"));
    std::ofstream pods_csv(dir / "pods.csv");
    for (std::size_t i = 0; i <= 40; ++i) pods_csv << trace[i] << "\n";
    pods_csv.close();
    const CliResult imported =
        run({"import", "--store", store, "--format", "csv", "--name", "pods", (dir / "pods.csv").string()});
    ASSERT_EQ(imported.exit_code, 0) << imported.err;
    std::filesystem::copy_file(store, dir / "here.db");
  }

  // The comparisons the store's runs of shards sent (their shards' distinct selections, per run)
  // and those runs (the batches), every shard of each counted once.
  std::pair<std::size_t, std::size_t> comparisons_and_batches() {
    data::TraceStore trace = data::TraceStore::open(store);
    std::size_t comparisons = 0;
    std::size_t batches = 0;
    for (const data::Run& run : trace.runs()) {
      if (run.partitioner != "sweep shards") continue;  // the recording
      ++batches;
      const std::vector<data::WorkItem> shards = trace.items(run.id);
      EXPECT_TRUE(expect_each_shard_once(run.id, shards.size()).empty()) << run.name;
      std::set<std::string> selections;
      for (const data::WorkItem& shard : shards) selections.insert(json::parse(shard.payload)["selection"].dump());
      comparisons += selections.size();
    }
    return {comparisons, batches};
  }

  std::string pools_file(const std::string& name, const std::string& csv) {
    const std::string path = (dir / name).string();
    std::ofstream(path) << csv;
    return path;
  }
};

// Every comparison the search makes fans out: the counts, the caps on the answer's nodes, the
// cheapest of the counts and its spot risk (the pool simulated again on-demand). The pool's every
// field is away from its default (autoscaled, a provisioning delay, priced, billed per minute,
// spot with a lifetime distribution), and so are the cluster's placement, expander and
// scale-down delay and the type limits: a field the shards did not carry would show in the JSON.
TEST_F(NodePlanFannedOut, ASinglePoolNodePlanWithItsCapsOverFourPoolWorkersPrintsTheLocalJsonByteForByte) {
  const std::string pools = pools_file("spot-pools.csv",
                                       "pool,count,min,max,provision_delay,capacity.cpu,capacity.memory,capacity_type,"
                                       "lifetime,price,billing\n"
                                       "spot-a,1,0,4,45s,4,16Gi,spot,\"weibull:shape=0.8,scale=40h\",0.06,per-minute\n");
  const std::vector<std::string> plan = {"plan", "--run", "pods", "--node-pools", pools, "--deadline", "2h",
                                         "--max-nodes", "4", "--replicas", "4", "--minimize", "cost",
                                         "--placement", "most-allocated", "--expander", "least-waste",
                                         "--scale-down-delay", "5m", "--type-limit", "render=6",
                                         "--startup-latency", "20s,30s,90s", "--seed", "5", "--json", "--quiet"};
  const std::string local = here(plan);
  ASSERT_NE(local.find("\"caps\""), std::string::npos) << local;
  ASSERT_NE(local.find("\"spot_risk\""), std::string::npos) << local;
  FakeApiServer server(pool_pods());
  cli_test::SweepWorkerPods pods(server, dir);
  std::vector<std::string> args = fanned(plan, server, 4);
  args.insert(args.end(), {"--shard-replicas", "2"});
  const CliResult result = run(args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, local);
  // Every comparison sent once (its shards' selection), every shard of each counted once, and
  // fewer batches than comparisons: the counts in look-ahead batches, the caps' searches side by
  // side, the on-demand copy with the caps' first batch.
  const auto [comparisons, batches] = comparisons_and_batches();
  EXPECT_LT(batches, comparisons);
  std::cout << "node plan fanned out: " << comparisons << " comparisons in " << batches << " batches" << std::endl;
}

// The mix of an on-demand and a spot pool, --minimize cost: each pool searched alone, the grid of
// mixes (pools at 0 nodes left out of the cluster simulated), the spot risk of the answer.
TEST_F(NodePlanFannedOut, ACheapestMixOfAnOnDemandAndASpotPoolOverFourPoolWorkersPrintsTheLocalJsonByteForByte) {
  const std::string pools = pools_file("mix-pools.csv",
                                       "pool,count,min,max,provision_delay,capacity.cpu,capacity.memory,capacity_type,"
                                       "interruption_rate,price\n"
                                       "standard,1,1,2,90s,4,16Gi,on-demand,,0.19\n"
                                       "cheap,0,0,10,90s,4,16Gi,spot,0.5,0.06\n");
  const std::vector<std::string> plan = {"plan", "--run", "pods", "--node-pools", pools, "--minimize", "cost",
                                         "--deadline", "2h", "--max-nodes", "4", "--replicas", "3", "--seed", "2",
                                         "--json", "--quiet"};
  const std::string local = here(plan);
  ASSERT_NE(local.find("\"mixes_evaluated\""), std::string::npos) << local;
  FakeApiServer server(pool_pods());
  cli_test::SweepWorkerPods pods(server, dir);
  const CliResult result = run(fanned(plan, server, 4));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, local);
  const auto [comparisons, batches] = comparisons_and_batches();
  EXPECT_LT(batches, comparisons);
  std::cout << "mix plan fanned out: " << comparisons << " comparisons in " << batches << " batches" << std::endl;
}

// Refused at once: before the recording is read (no replay note), before anything is simulated.
TEST_F(NodePlanFannedOut, ANodePlansFanOutOptionsWithoutClusterOrInJobPerItemModeAreRefusedBeforeAnyNote) {
  const std::vector<std::string> plan = {"plan", "--run", "pods", "--machine", "cpu=4,memory=16Gi", "--deadline", "2h",
                                         "--max-nodes", "4", "--replicas", "2", "--store", store};
  std::vector<std::string> alone = plan;
  alone.insert(alone.end(), {"--pool-workers", "8"});
  const CliResult refused = run(alone);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(refused.err, "millrace: --pool-workers: fans the simulations out: give --cluster kubernetes with it\n");
  FakeApiServer server(pool_pods());
  std::vector<std::string> job_per_item = plan;
  job_per_item.insert(job_per_item.end(), {"--cluster", "kubernetes", "--kubeconfig", kubeconfig_for(server),
                                           "--job-template", template_path});
  const CliResult mode = run(job_per_item);
  EXPECT_EQ(mode.exit_code, 1);
  EXPECT_EQ(mode.err, "millrace: --mode job-per-item: a sweep fans out over a pool of workers: --mode worker-pool\n");
  EXPECT_EQ(server.record().jobs_created, 0);
}

// For bench/README, run by hand (--gtest_also_run_disabled_tests): the same 64 simulations here
// and fanned out over 4 workers in 2 to 64 shards; wall times printed, nothing timed asserted.
TEST_F(SweepFannedOut, DISABLED_MeasureTheOverheadPerShard) {
  const std::string big = (dir / "big-model.json").string();
  data::CostModel({{{0, 100000}, 0, 1e6}}, "units", "synthetic").save(big);
  const std::vector<std::string> compare = {"compare", "--model", big, "--partitioners", "uniform", "--range-count",
                                            "20000", "--workers", "8,16", "--replicas", "32", "--fail-prob", "0.1",
                                            "--json", "--quiet"};
  auto ms_since = [](std::chrono::steady_clock::time_point start) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  };
  auto started = std::chrono::steady_clock::now();
  const std::string local = here(compare);
  std::cout << "here: " << ms_since(started) << " ms" << std::endl;  // flushed before workers fork
  for (const char* block : {"32", "8", "2", "1"}) {
    std::filesystem::remove(store);
    FakeApiServer server(pool_pods());
    cli_test::SweepWorkerPods pods(server, dir);
    std::vector<std::string> args = fanned(compare, server, 4);
    args.insert(args.end(), {"--shard-replicas", block});
    started = std::chrono::steady_clock::now();
    CliResult result = run(args);
    std::cout << "fanned out, " << 64 / std::atoi(block) << " shards: " << ms_since(started) << " ms" << std::endl;
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.out, local);
  }
}

// For bench/README, run by hand (--gtest_also_run_disabled_tests): a plan of several rounds
// here, then fanned out over 4 workers; wall times, batches and counts printed, nothing timed
// asserted.
TEST_F(SweepFannedOut, DISABLED_MeasureAPlanFannedOut) {
  const std::string big = (dir / "big-model.json").string();
  data::CostModel({{{0, 100000}, 0, 1e6}}, "units", "synthetic").save(big);
  const std::vector<std::string> plan = {"plan", "--model", big, "--partitioners", "uniform", "--range-count", "20000",
                                         "--deadline", "2h", "--max-workers", "64", "--replicas", "8",
                                         "--fail-prob", "0.1", "--json", "--quiet"};
  const auto started = std::chrono::steady_clock::now();
  const std::string local = here(plan);
  const auto local_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  FakeApiServer server(pool_pods());
  cli_test::SweepWorkerPods pods(server, dir);
  std::vector<std::string> args = fanned(plan, server, 4);
  args.insert(args.end(), {"--shard-replicas", "8"});
  const auto fanned_start = std::chrono::steady_clock::now();
  CliResult result = run(args);
  const auto fanned_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - fanned_start);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, local);
  std::size_t shards = 0;
  data::TraceStore trace = data::TraceStore::open(store);
  for (const data::Run& batch : trace.runs()) shards += trace.items(batch.id).size();
  const json curve = json::parse(result.out)["curve"];
  std::cout << "here " << local_ms.count() << " ms; fanned out " << fanned_ms.count() << " ms, " << curve.size()
            << " counts asked (";
  for (const json& point : curve) std::cout << " " << point["workers"];
  std::cout << " ), " << shards << " sent in " << trace.runs().size() << " batches" << std::endl;
}

}  // namespace
}  // namespace millrace
