// Real local attempts per second against the size of the plan: the scheduler core, the local
// process cluster (each attempt `/bin/sh -c true` in its own process tree) and the run recorder
// writing every attempt to a trace store, with 10^3, 10^5 and 10^6 ranges planned. What grows
// with the plan is the memory of the process that starts the attempts; a start that copied
// page tables (fork) would slow down with it, and so would per-attempt work linear in the plan.
// Each iteration runs 100 more attempts of the same run; items_per_second is attempts/s.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "cluster_adapter/local/local_process_cluster.h"
#include "cluster_adapter/realtime/real_run_loop.h"
#include "cluster_adapter/realtime/run_recorder.h"
#include "cluster_adapter/realtime/store_backlog.h"
#include "cluster_adapter/realtime/wall_clock.h"
#include "data/trace_store.h"
#include "scheduler/scheduler.h"

namespace millrace::cluster_adapter {
namespace {

constexpr int kWorkers = 4;
constexpr std::int64_t kAttemptsPerIteration = 100;

void BM_LocalAttempts(benchmark::State& state) {
  const auto planned = static_cast<std::int64_t>(state.range(0));
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("millrace-bench-local-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::vector<data::WorkItem> items(static_cast<std::size_t>(planned));
  for (std::int64_t i = 0; i < planned; ++i) {
    items[i].id = std::to_string(i * 10) + "-" + std::to_string(i * 10 + 9);
    items[i].range = data::Range{i * 10, 10};
  }
  data::TraceStore store = data::TraceStore::open((dir / "trace.db").string());
  data::Run run;
  run.name = "bench";
  run.source = data::RunSource::kReal;
  std::int64_t run_id = store.add_run(run, items, {});
  StoreBacklog writes(store);

  WallClock clock;
  LocalProcessOptions options;
  options.command = "true";
  options.concurrency = kWorkers;
  options.log_dir = (dir / "logs").string();
  LocalProcessCluster cluster(options, clock);
  scheduler::SchedulerOptions scheduler_options;
  scheduler_options.policy = "fixed-pool";
  scheduler_options.params.workers = kWorkers;
  scheduler_options.params.max_in_flight = kWorkers;
  scheduler::Scheduler scheduler(items, scheduler_options, cluster, clock);
  RunRecorder recorder(writes, run_id, items, {});
  std::int64_t finished = 0;
  scheduler.set_observer([&](scheduler::AttemptHandle, const data::Attempt& a) {
    recorder.observe(a);
    finished += a.outcome != data::Outcome::kRunning;
  });
  scheduler.start();
  RealRunLoop loop(clock, cluster);
  std::int64_t target = 0;
  for (auto _ : state) {
    target += kAttemptsPerIteration;
    loop.run_until([&] { return finished >= target || scheduler.finished(); });
  }
  state.SetItemsProcessed(finished);
  scheduler.stop();
  loop.run_until([&] { return scheduler.stopped(); });
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_LocalAttempts)->Arg(1'000)->Arg(100'000)->Arg(1'000'000)->Iterations(5)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace millrace::cluster_adapter

BENCHMARK_MAIN();
