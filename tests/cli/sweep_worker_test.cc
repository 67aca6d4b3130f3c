// `millrace sweep-worker` against a lease API served here (a lease book and server of its own,
// no scheduler): a bundle whose bytes do not hash to the SHA-256 its shard names is refused, the
// shard completed as failed with the reason and never run, and the worker exits 0 when told to;
// without MILLRACE_LEASE_URL it refuses to start, naming the variable.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cluster_adapter/kubernetes/worker_pool/lease_book.h"
#include "cluster_adapter/kubernetes/worker_pool/lease_server.h"
#include "sim/sweep_shards.h"
#include "tests/cli/cli_process.h"
#include "tests/cli/sweep_worker_pods.h"
#include "tests/support/loose_plans.h"
#include "tests/support/manual_clock.h"
#include "tests/support/scratch_dir.h"

namespace millrace {
namespace {

using cluster_adapter::LeaseEvent;

// Runs `millrace sweep-worker` with `env`, its stderr into `err`; its exit code.
int run_worker(const std::vector<std::string>& env, const std::string& err) {
  int status = 0;
  waitpid(cli_test::start_sweep_worker(env, err), &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(SweepWorker, ABundleWhoseHashDoesNotMatchIsRefusedAndItsShardFailsUnrun) {
  test_support::ScratchDir scratch;
  test_support::ManualClock clock(1'000'000);
  cluster_adapter::LeaseBook book(clock, {60'000'000, 20'000'000, 200'000}, "s1");
  auto sweep = std::make_shared<cluster_adapter::SweepExchange>();
  const std::string named(64, 'd');
  sweep->add_bundle(named, "bytes that hash to something else");
  sweep->expect_results([](const std::string&, const nlohmann::json&) {});
  cluster_adapter::LeaseServer server(book, "sweep-1", 1, "127.0.0.1", 0, "pool-token", sweep);
  sim::ComparisonSelection selection;
  selection.workers = {2};
  selection.orders = {scheduler::QueueOrder::kPlan};
  data::WorkItem item;
  item.id = "shard-0";
  item.payload = sim::payload_of({named, selection, sim::Shard{0, 0, 1}});
  book.offer(test_support::loose_submission(1, item, 1, "w000"));

  std::vector<LeaseEvent> events;
  std::thread scheduler([&] {  // what the scheduler would hear, then the end of the sweep
    for (int i = 0; i < 3000 && events.size() < 2; ++i) {
      for (const LeaseEvent& e : book.wait_events(10'000)) events.push_back(e);
    }
    book.close();
  });
  const std::string err = scratch.file("worker.err");
  const int code = run_worker({"MILLRACE_LEASE_URL=http://127.0.0.1:" + std::to_string(server.port()),
                               "MILLRACE_LEASE_TOKEN=pool-token", "POD_NAME=pool-0", "TMPDIR=" + scratch.file("")},
                              err);
  scheduler.join();
  EXPECT_EQ(code, 0);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, LeaseEvent::Kind::kStarted);
  EXPECT_EQ(events[1].kind, LeaseEvent::Kind::kFailed);
  const std::string refusal = "bundle " + named + ": refused: its bytes hash to ";
  EXPECT_EQ(events[1].event.reason.rfind(refusal, 0), 0u) << events[1].event.reason;
  EXPECT_NE(events[1].event.reason.find(", not the SHA-256 its shards name; the shard is not run"), std::string::npos);
  EXPECT_TRUE(sweep->results().empty());
  const std::string said = cli_test::read_text(err);
  EXPECT_NE(said.find("lease s1-1: " + refusal), std::string::npos) << said;
  EXPECT_EQ(said.find("pool-token"), std::string::npos) << said;
}

TEST(SweepWorker, WithoutTheLeaseUrlItRefusesToStartNamingTheVariable) {
  test_support::ScratchDir scratch;
  const std::string err = scratch.file("worker.err");
  EXPECT_EQ(run_worker({"POD_NAME=pool-0"}, err), 1);
  EXPECT_EQ(cli_test::read_text(err),
            "millrace: MILLRACE_LEASE_URL: not set: the lease API's URL (the pool Job sets it)\n");
}

}  // namespace
}  // namespace millrace
