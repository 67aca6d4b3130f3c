// One run summary wherever the attempts come from (data/run_summary.h): a simulation's own
// summary, the summary of its attempt log as a recording, and the summary of the run read back
// from the trace store (what `show` prints, and what `run` reports for a real run) are the same,
// to the microsecond, tail included, also when the first attempt starts after the run's time 0
// (a pod start-up latency) and attempts fail and are retried.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <unordered_map>

#include "data/run_summary.h"
#include "data/trace_store.h"
#include "sim/replay.h"
#include "sim/simulation.h"
#include "tests/data/store_fixture.h"

namespace millrace::sim {
namespace {

constexpr data::Micros kS = data::kMicrosPerSecond;

struct Simulated {
  std::vector<data::WorkItem> items;
  SimulationResult result;
};

// 40 ranges of 1 to 40 s (a portable LCG, not a standard distribution), the last one 200 s, on 6
// workers, each pod starting 5 s after it is asked for, a fifth of the attempts failing.
Simulated simulated_run() {
  Simulated run;
  std::unordered_map<std::string, data::Micros> durations;
  std::uint64_t x = 2024;
  for (int i = 0; i < 40; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    data::WorkItem item;
    item.range = data::Range{i * 100, 100};
    item.id = item.range->end_count();
    durations[item.id] = (1 + static_cast<data::Micros>((x >> 33) % 40)) * kS;
    run.items.push_back(item);
  }
  durations[run.items.back().id] = 200 * kS;  // a straggler, last in the plan
  SimulationConfig config;
  config.cluster.nodes = 6;
  config.cluster.startup.constant = 5 * kS;
  config.cluster.fail_prob = 0.2;
  config.scheduler.params.workers = 6;
  config.scheduler.retry.max_attempts = 20;
  config.seed = 7;
  run.result = simulate(run.items, table_model(durations, "test"), config);
  return run;
}

TEST(SummarySources, ASimulationItsAttemptLogAndItsStoredRunGiveOneSummary) {
  const Simulated run = simulated_run();
  const data::RunSummary& simulated = run.result.summary;

  // A reference over the attempt log, computed here: counts, span, named workers.
  const std::vector<data::Attempt>& log = run.result.attempt_log;
  ASSERT_FALSE(log.empty());
  data::Micros first = log.front().start, last = log.front().end;
  std::size_t failed = 0;
  std::set<std::string> workers;
  for (const data::Attempt& a : log) {
    first = std::min(first, a.start);
    last = std::max(last, a.end);
    failed += a.outcome == data::Outcome::kFailed ? 1 : 0;
    if (!a.worker.empty()) workers.insert(a.worker);
  }
  EXPECT_GE(first, 5 * kS);  // the pods' start-up: the run's span starts with its first attempt
  EXPECT_EQ(simulated.attempts, log.size());
  EXPECT_EQ(simulated.failed_attempts, failed);
  EXPECT_GT(failed, 0u);
  EXPECT_EQ(simulated.makespan, last - first);
  EXPECT_EQ(last, run.result.makespan);
  EXPECT_EQ(simulated.workers, workers.size());
  EXPECT_EQ(simulated.items_without_success, 0u);
  EXPECT_EQ(simulated.longest.size(), 5u);
  EXPECT_GT(simulated.tail.last_alone, 0);
  EXPECT_GT(simulated.tail.utilisation_last_tenth, 0);

  // The same attempts as a recording.
  EXPECT_EQ(data::summarize(run.items, log), simulated);

  // The same attempts stored and read back, in the store's order.
  data::testing::TempDir dir;
  data::TraceStore store = data::TraceStore::open(dir.file("s.db"));
  data::Run source;
  source.name = "sources";
  const std::int64_t id = record_simulation(store, source, run.items, run.result, nlohmann::json::object());
  EXPECT_EQ(data::summarize(store.items(id), store.attempts(id)), simulated);
}

}  // namespace
}  // namespace millrace::sim
