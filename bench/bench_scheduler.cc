// Scheduler dispatch alone, without the simulator: a cluster that reports every submission
// started and succeeded at once feeds the core its events, so the figure is the core's own cost
// per item (queue pop, policy decision, submission, attempt record) for a fixed pool and for
// job-per-item, 10^5 ranges on 256 workers.
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "scheduler/clock.h"
#include "scheduler/cluster.h"
#include "scheduler/scheduler.h"

namespace millrace::scheduler {
namespace {

constexpr std::size_t kItems = 100'000;
constexpr int kWorkers = 256;

// Runs each submission to success as soon as it is taken from the queue, one time unit later.
class InstantCluster : public Cluster {
 public:
  void set_listener(ClusterListener* listener) override { listener_ = listener; }
  void submit(const Submission& submission) override { pending_.push_back(submission); }
  void cancel(AttemptHandle) override {}
  int capacity() const override { return kWorkers; }

  void drain(data::Micros& now) {
    AttemptEvent event;
    while (!pending_.empty()) {
      Submission s = pending_.front();
      pending_.pop_front();
      event.handle = s.handle;
      event.at = now;
      event.worker = s.worker.empty() ? std::string_view(worker_) : s.worker;
      listener_->on_started(event);
      event.at = ++now;
      listener_->on_succeeded(event);
    }
  }

 private:
  ClusterListener* listener_ = nullptr;
  std::deque<Submission> pending_;
  std::string worker_ = "job";
};

class CountingClock : public Clock {
 public:
  explicit CountingClock(const data::Micros& now) : now_(now) {}
  data::Micros now() const override { return now_; }
  TimerId call_at(data::Micros, std::function<void()>) override { return ++timers_; }
  void cancel_timer(TimerId) override {}

 private:
  const data::Micros& now_;
  TimerId timers_ = 0;
};

const std::vector<data::WorkItem>& plan() {
  static const std::vector<data::WorkItem> items = [] {
    std::vector<data::WorkItem> v(kItems);
    for (std::size_t i = 0; i < kItems; ++i) {
      v[i].id = std::to_string(i);
      v[i].range = data::Range{static_cast<std::int64_t>(i) * 100, 100};
    }
    return v;
  }();
  return items;
}

void BM_SchedulerDispatch(benchmark::State& state, const char* policy) {
  SchedulerOptions options;
  options.policy = policy;
  options.params.workers = kWorkers;
  options.params.max_in_flight = kWorkers;
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<data::WorkItem> items = plan();
    data::Micros now = 0;
    InstantCluster cluster;
    CountingClock clock(now);
    Scheduler core(std::move(items), options, cluster, clock);
    state.ResumeTiming();
    core.start();
    cluster.drain(now);
    if (!core.finished()) state.SkipWithError("the scheduler did not finish");
    benchmark::DoNotOptimize(core.attempt_spans().data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kItems));
}
BENCHMARK_CAPTURE(BM_SchedulerDispatch, fixed_pool, "fixed-pool")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SchedulerDispatch, job_per_item, "job-per-item")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace millrace::scheduler

BENCHMARK_MAIN();
