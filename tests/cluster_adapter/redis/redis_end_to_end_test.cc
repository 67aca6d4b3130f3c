// End to end against a real redis-server: a 1,000-range stellar-pubnet plan pushed by the CLI,
// eight shell workers following the deployment's protocol (one killed mid-range), and `watch`
// recording the live run into the trace store, which then fits and replays like any other.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "cluster_adapter/redis/redis_queue.h"
#include "cluster_adapter/redis/redis_watch.h"
#include "data/cost_model_fit.h"
#include "data/importers/fields.h"
#include "sim/duration_model.h"
#include "sim/simulation.h"
#include "tests/cluster_adapter/redis/redis_server.h"
#include "tests/data/store_fixture.h"

namespace millrace {
namespace {

using data::testing::TempDir;

const std::string kCli = MILLRACE_CLI;
const std::string kSource = MILLRACE_SOURCE_DIR;

struct Recorded {
  data::Micros total = 0;
  std::optional<data::Micros> tx_apply;
  std::string tx_text;
  std::string total_text;
};

// The recording's figures by END/COUNT, read straight from the bundled CSV.
std::map<std::string, Recorded> recorded_timings() {
  std::ifstream in(kSource + "/data/sets/stellar-pcv2-2024-11/pcv2_run_2024-11_per_range_timings.csv");
  std::map<std::string, Recorded> out;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::vector<std::string> f;
    std::size_t at = 0;
    for (std::size_t comma; (comma = line.find(',', at)) != std::string::npos; at = comma + 1) {
      f.push_back(line.substr(at, comma - at));
    }
    f.push_back(line.substr(at));
    out[f[0] + "/" + f[1]] = {data::importers::parse_seconds(f[5], "csv", "total_s"),
                              data::importers::parse_millis(f[4], "csv", "tx_apply_ms"), f[4], f[5]};
  }
  return out;
}

TEST(RedisEndToEnd, EightWorkersOneKilledFinishEveryRangeOnceAndTheStoreHoldsEveryAttempt) {
  // 250 ranges: every worker process costs a fork per range, and on a loaded 2-core machine a
  // thousand of them took more than two minutes.
  TempDir dir;
  testing::RedisServer server;
  const std::map<std::string, Recorded> recorded = recorded_timings();

  // The plan: the 250 ranges below the recording's tip, as the deployment's generator cuts them.
  const std::string plan = dir.file("plan.txt");
  ASSERT_EQ(std::system((kCli + " partition --preset stellar-pubnet --tip 54326463 --start 50326463"
                                " --format end-count -o " + plan + " 2>/dev/null").c_str()), 0);
  std::vector<std::string> ranges;
  {
    std::ifstream in(plan);
    for (std::string r; std::getline(in, r);) {
      if (r.front() != '#') ranges.push_back(r);  // "# overlap 320"
    }
  }
  ASSERT_EQ(ranges.size(), 250u);
  ASSERT_EQ(ranges.front(), "54326463/16320");
  ASSERT_EQ(ranges.back(), "50342463/16320");

  // Each worker sleeps its range's recorded duration scaled so the whole run takes ~2 s of sleep.
  double total_s = 0;
  for (const std::string& r : ranges) total_s += data::seconds_from_micros(recorded.at(r).total);
  const std::string timings = dir.file("timings.txt");
  {
    std::ofstream out(timings);
    for (const std::string& r : ranges) {
      const double pause = std::min(0.3, data::seconds_from_micros(recorded.at(r).total) * 16.0 / total_s);
      char text[32];
      std::snprintf(text, sizeof text, "%.4f", pause);
      out << r << " " << text << " " << recorded.at(r).tx_text << " " << recorded.at(r).total_text << "\n";
    }
  }
  const std::string store_path = dir.file("trace.db");
  ASSERT_EQ(std::system((kCli + " push --redis " + server.address() + " --plan " + plan + " --store " +
                         store_path + " --run live 2>/dev/null").c_str()), 0);

  const std::string worker = kSource + "/tests/cluster_adapter/redis/stellar_worker.sh";
  std::string script = "timeout 300 " + kCli + " watch --redis " + server.address() + " --store " + store_path +
                       " --run live --poll 100ms > " + dir.file("watch.out") + " 2> " + dir.file("watch.err") +
                       " & w=$!\n";
  for (int i = 0; i < 8; ++i) {
    script += "bash " + worker + " " + std::to_string(server.port()) + " w" + std::to_string(i) + " " + timings +
              (i == 3 ? " 5" : "") + " 2>/dev/null &\n";
  }
  script += "wait $w; rc=$?; wait; exit $rc\n";
  std::ofstream(dir.file("run.sh")) << script;
  ASSERT_EQ(std::system(("bash " + dir.file("run.sh")).c_str()), 0) << data::testing::read_bytes(dir.file("watch.err"));

  // The queue: every range succeeded exactly once, nothing left.
  cluster_adapter::RedisConnection redis(server.address());
  cluster_adapter::RedisQueue queue(redis, {});
  const cluster_adapter::QueueSnapshot s = queue.snapshot();
  EXPECT_TRUE(s.ranges.empty());
  EXPECT_TRUE(s.in_progress.empty());
  EXPECT_EQ(std::multiset<std::string>(s.succeeded.begin(), s.succeeded.end()),
            std::multiset<std::string>(ranges.begin(), ranges.end()));
  EXPECT_EQ(s.metrics.size(), 250u);

  // The store: one succeeded attempt per range with the recorded figures, plus the killed try.
  data::TraceStore store = data::TraceStore::open(store_path);
  const std::int64_t run = store.find_run("live");
  const std::vector<data::WorkItem> items = store.items(run);
  const std::vector<data::Attempt> attempts = store.attempts(run);
  ASSERT_EQ(items.size(), 250u);
  ASSERT_EQ(attempts.size(), 251u);
  std::map<std::string, int> succeeded;
  std::vector<data::Attempt> lost;
  for (const data::Attempt& a : attempts) {
    if (a.outcome == data::Outcome::kSucceeded) {
      ++succeeded[a.item_id];
      EXPECT_EQ(a.duration(), recorded.at(a.item_id).total) << a.item_id;
      EXPECT_EQ(a.work_time, recorded.at(a.item_id).tx_apply) << a.item_id;
    } else {
      lost.push_back(a);
    }
  }
  EXPECT_EQ(succeeded.size(), 250u);
  EXPECT_TRUE(std::all_of(succeeded.begin(), succeeded.end(), [](const auto& s) { return s.second == 1; }));
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0].worker, "w3");
  EXPECT_EQ(lost[0].failure_reason, cluster_adapter::kHeartbeatLost);
  EXPECT_EQ(lost[0].number, 1);
  EXPECT_EQ(store.attempts(run).size(), attempts.size());
  EXPECT_GT(store.run(run).ended, 0);

  // It fits like any recorded run...
  const std::vector<data::Observation> observations = data::observations_of(items, attempts);
  data::FitOptions fit_options;
  fit_options.bins = 8;
  const data::FitReport fit = data::fit_cost_model(observations, fit_options, "live");
  EXPECT_GT(fit.joint.r2, 0.0);
  // ... and replays in the simulator: 8 workers, fixed pool, tip first.
  sim::SimulationConfig config;
  config.scheduler.params.workers = 8;
  config.cluster.slots_per_node = 8;
  const sim::SimulationResult replay =
      sim::simulate(items, sim::table_model(sim::recorded_durations(items, attempts, "live"), "live"), config);
  EXPECT_EQ(replay.succeeded, 250u);
  EXPECT_FALSE(replay.run_failed);
  data::Micros longest = 0, sum = 0;
  for (const auto& [id, r] : recorded) {
    if (succeeded.count(id)) longest = std::max(longest, r.total), sum += r.total;
  }
  EXPECT_GE(replay.makespan, std::max(longest, sum / 8));
}

}  // namespace
}  // namespace millrace
