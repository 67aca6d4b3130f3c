// The worker pool's lease protocol, over HTTP and on the lease book itself, on a clock the test
// moves: a lease carries the item's parameters; completing it reports started then succeeded or
// failed; heartbeats keep it; a lease not extended expires into a failed attempt and whatever
// its worker says later is refused (410); cancelled and unknown leases; malformed bodies named;
// idle workers released as lanes retire but the one heard from last kept while leases are held
// (a worker frozen while waiting is not the one kept); exit at the end.
#include "cluster_adapter/kubernetes/worker_pool/lease_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <future>
#include <nlohmann/json.hpp>

#include "cluster_adapter/kubernetes/worker_pool/lease_book.h"
#include "tests/support/loose_plans.h"
#include "tests/cluster_adapter/kubernetes/k8s_test_support.h"
#include "tests/support/idle_connections.h"
#include "tests/support/manual_clock.h"

namespace millrace::cluster_adapter {
namespace {

using nlohmann::json;

// now() is what the test sets; the lease book sets no timers.
using test_support::ManualClock;

constexpr data::Micros kSecond = data::kMicrosPerSecond;

data::WorkItem range_item(int i) {
  data::WorkItem item;
  item.id = "r";
  item.id += std::to_string(i);
  item.range = data::Range{1000 + 100 * i, 100};
  return item;
}

class LeaseServerTest : public ::testing::Test {
 protected:
  LeaseServerTest() : book_(clock_, {10 * kSecond, 3 * kSecond, 50 * data::kMicrosPerMilli}, "s1"),
                      server_(book_, "catchup-1", 4, "127.0.0.1", 0), client_("127.0.0.1", server_.port()) {
    for (int i = 0; i < 4; ++i) items_.push_back(range_item(i));
  }

  scheduler::Submission submission(int i, int attempt = 1) {
    std::string lane = "w00";
    lane += std::to_string(i);
    return test_support::loose_submission(static_cast<scheduler::AttemptHandle>(i + 1), items_[i], attempt, lane);
  }
  json post(const std::string& path, const json& body, int expected_status = 200) {
    auto response = client_.Post(path.c_str(), body.dump(), "application/json");
    EXPECT_TRUE(response) << path;
    if (!response) return json();
    EXPECT_EQ(response->status, expected_status) << path << ": " << response->body;
    return json::parse(response->body);
  }
  json lease(const std::string& worker) { return post("/v1/lease", {{"worker", worker}}); }
  std::vector<LeaseEvent> events() { return book_.wait_events(0); }

  ManualClock clock_{1 * kSecond};
  LeaseBook book_;
  LeaseServer server_;
  httplib::Client client_;
  std::vector<data::WorkItem> items_;
};

TEST_F(LeaseServerTest, LeaseCarriesTheItemAndCompletingItReportsStartedThenSucceeded) {
  book_.offer(submission(2, 3));
  json work = lease("pool-2-abc");
  EXPECT_EQ(work["action"], "work");
  EXPECT_EQ(work["lease"]["id"], "s1-1");
  EXPECT_EQ(work["lease"]["expires_in_ms"], 10'000);
  EXPECT_EQ(work["lease"]["heartbeat_every_ms"], 3'000);
  EXPECT_EQ(work["item"], json({{"run", "catchup-1"}, {"id", "r2"}, {"attempt", 3}, {"type", items_[2].type}, {"payload", ""},
                                {"first", 1200}, {"count", 100}, {"last", 1299}, {"end", 1300},
                                {"end_count", items_[2].range->end_count()}}));
  clock_.set(4 * kSecond);
  EXPECT_EQ(post("/v1/leases/s1-1/complete", {{"exit_code", 0}, {"work_time_ms", 2500}}),
            json({{"recorded", "succeeded"}}));
  std::vector<LeaseEvent> happened = events();
  ASSERT_EQ(happened.size(), 2u);
  EXPECT_EQ(happened[0].kind, LeaseEvent::Kind::kStarted);
  EXPECT_EQ(happened[0].event.handle, 3u);
  EXPECT_EQ(happened[0].event.worker, "pool-2-abc");
  EXPECT_EQ(happened[0].event.at, 1'000'000);
  EXPECT_EQ(happened[1].kind, LeaseEvent::Kind::kSucceeded);
  EXPECT_EQ(happened[1].event.at, 4 * kSecond);
  EXPECT_EQ(happened[1].event.work_time, 2'500'000);
  // A completion sent again (its answer was lost) is answered the same, not counted twice.
  post("/v1/leases/s1-1/complete", {{"exit_code", 0}});
  EXPECT_TRUE(events().empty());
}

TEST_F(LeaseServerTest, NonZeroExitCodeFailsTheAttemptWithTheWorkersReason) {
  book_.offer(submission(0));
  lease("pool-0");
  EXPECT_EQ(post("/v1/leases/s1-1/complete", {{"exit_code", 3}, {"reason", "checksum mismatch"}}),
            json({{"recorded", "failed"}}));
  std::vector<LeaseEvent> happened = events();
  ASSERT_EQ(happened.size(), 2u);
  EXPECT_EQ(happened[1].kind, LeaseEvent::Kind::kFailed);
  EXPECT_EQ(happened[1].event.exit_code, 3);
  EXPECT_EQ(happened[1].event.reason, "checksum mismatch");
}

TEST_F(LeaseServerTest, HeartbeatsKeepALeaseThatWouldHaveExpired) {
  book_.offer(submission(0));
  lease("pool-0");  // expires at 11 s
  for (data::Micros t : {9 * kSecond, 18 * kSecond, 27 * kSecond}) {
    clock_.set(t);
    EXPECT_EQ(post("/v1/leases/s1-1/heartbeat", json::object()), json({{"expires_in_ms", 10'000}}));
  }
  clock_.set(36 * kSecond);
  EXPECT_EQ(events().size(), 1u);  // started only
  EXPECT_EQ(post("/v1/leases/s1-1/complete", {{"exit_code", 0}})["recorded"], "succeeded");
}

TEST_F(LeaseServerTest, LeaseNotExtendedExpiresIntoAFailedAttemptAndItsWorkerIsRefusedLater) {
  book_.offer(submission(1));
  lease("pool-1");
  clock_.set(11 * kSecond);
  std::vector<LeaseEvent> happened = events();
  ASSERT_EQ(happened.size(), 2u);
  EXPECT_EQ(happened[1].kind, LeaseEvent::Kind::kFailed);
  EXPECT_EQ(happened[1].event.reason, kLeaseExpired);
  EXPECT_EQ(happened[1].event.worker, "pool-1");
  EXPECT_EQ(happened[1].event.at, 11 * kSecond);
  EXPECT_EQ(book_.status().expired, 1);
  json refused = post("/v1/leases/s1-1/heartbeat", json::object(), 410);
  EXPECT_EQ(refused["error"], "lease s1-1 expired: its item went back to the queue; ask for a new lease");
  post("/v1/leases/s1-1/complete", {{"exit_code", 0}}, 410);
  EXPECT_TRUE(events().empty());
}

TEST_F(LeaseServerTest, WithdrawnLeaseIsCancelledAndAnUnknownOneIsNotFound) {
  book_.offer(submission(0));
  book_.offer(submission(1));
  lease("pool-0");
  book_.withdraw(1);  // leased
  book_.withdraw(2);  // still offered
  std::vector<LeaseEvent> happened = events();
  ASSERT_EQ(happened.size(), 3u);
  EXPECT_EQ(happened[1].event.reason, "cancelled");
  EXPECT_EQ(happened[1].event.handle, 1u);
  EXPECT_EQ(happened[2].event.reason, "cancelled");
  EXPECT_EQ(happened[2].event.handle, 2u);
  EXPECT_NE(post("/v1/leases/s1-1/heartbeat", json::object(), 410)["error"].get<std::string>().find("cancelled"),
            std::string::npos);
  EXPECT_EQ(post("/v1/leases/s0-7/complete", {{"exit_code", 0}}, 404)["error"],
            "no lease s0-7 (the scheduler may have restarted): ask for a new lease");
}

TEST_F(LeaseServerTest, MalformedBodiesAreRefusedNamingTheField) {
  const std::string worker_error = "body: worker must be the pod's name, a string of 1 to 253 printable characters";
  EXPECT_EQ(post("/v1/lease", json::object(), 400)["error"], worker_error);
  EXPECT_EQ(post("/v1/lease", {{"worker", 7}}, 400)["error"], worker_error);
  EXPECT_EQ(post("/v1/lease", {{"worker", std::string(254, 'w')}}, 400)["error"], worker_error);
  EXPECT_EQ(post("/v1/lease", {{"worker", "pod\r\nX-Injected: 1"}}, 400)["error"], worker_error);
  for (const char* body : {"[]", "\"text\"", "12345678901234567890123456789"}) {
    auto response = client_.Post("/v1/lease", body, "application/json");
    ASSERT_TRUE(response) << body;
    EXPECT_EQ(response->status, 400) << body;
    EXPECT_EQ(json::parse(response->body)["error"], "body: not a JSON object") << body;
  }
  for (const char* body : {"not json", "{\"worker\": \"po"}) {
    auto response = client_.Post("/v1/lease", body, "application/json");
    ASSERT_TRUE(response) << body;
    EXPECT_EQ(response->status, 400) << body;
    EXPECT_EQ(json::parse(response->body)["error"].get<std::string>().rfind("body: malformed JSON: ", 0), 0u) << body;
  }
  book_.offer(submission(0));
  lease("pool-0");
  const std::string code_error = "body: exit_code must be an integer that fits in 32 bits";
  EXPECT_EQ(post("/v1/leases/s1-1/complete", {{"exit_code", "0"}}, 400)["error"], code_error);
  EXPECT_EQ(post("/v1/leases/s1-1/complete", {{"exit_code", 99999999999}}, 400)["error"], code_error);
  EXPECT_EQ(post("/v1/leases/s1-1/complete", {{"exit_code", 18446744073709551615ULL}}, 400)["error"], code_error);
  EXPECT_EQ(post("/v1/leases/s1-1/complete", {{"exit_code", 1.5}}, 400)["error"], code_error);
  const std::string work_error = "body: work_time_ms must be an integer from 0 to 9223372036854775";
  EXPECT_EQ(post("/v1/leases/s1-1/complete", {{"exit_code", 0}, {"work_time_ms", -5}}, 400)["error"], work_error);
  EXPECT_EQ(post("/v1/leases/s1-1/complete", {{"exit_code", 0}, {"work_time_ms", 9223372036854776}}, 400)["error"],
            work_error);
  EXPECT_EQ(post("/v1/leases/s1-1/complete", {{"exit_code", 0}, {"work_time_ms", 1e300}}, 400)["error"], work_error);
  EXPECT_EQ(post("/v1/leases/s1-1/complete", {{"exit_code", 1}, {"reason", std::string(1025, 'r')}}, 400)["error"],
            "body: reason must be a string of at most 1024 printable characters");
  EXPECT_EQ(events().size(), 1u);  // started; nothing ended
  EXPECT_EQ(post("/v1/leases/s1-1/complete", {{"exit_code", -2147483648LL}, {"work_time_ms", 9223372036854775}}),
            json({{"recorded", "failed"}}));  // the edges themselves are fine
  std::vector<LeaseEvent> ended = events();
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0].event.exit_code, -2147483648LL);
  EXPECT_EQ(ended[0].event.work_time, 9223372036854775 * data::kMicrosPerMilli);
}

// A key given twice is ambiguous (which one did the worker mean?) and a body nested 1,000 deep
// is no request: both are refused naming the problem, and nothing is leased.
TEST_F(LeaseServerTest, BodiesWithARepeatedKeyOrNestedTooDeepAreRefused) {
  book_.offer(submission(0));
  auto twice = client_.Post("/v1/lease", R"({"worker": "pool-0", "worker": "pool-1"})", "application/json");
  ASSERT_TRUE(twice);
  EXPECT_EQ(twice->status, 400);
  EXPECT_EQ(json::parse(twice->body)["error"], "body: malformed JSON: the key 'worker' is given twice");
  const std::string deep = R"({"worker": "pool-0", "x": )" + std::string(1000, '[') + std::string(1000, ']') + "}";
  auto nested = client_.Post("/v1/lease", deep, "application/json");
  ASSERT_TRUE(nested);
  EXPECT_EQ(nested->status, 400);
  EXPECT_EQ(json::parse(nested->body)["error"], "body: malformed JSON: nested deeper than 256 levels");
  EXPECT_EQ(book_.status().offered, 1);  // nothing leased
  lease("pool-0");
  auto inner = client_.Post("/v1/leases/s1-1/complete", R"({"exit_code": 0, "x": {"a": 1, "a": 2}})",
                            "application/json");
  ASSERT_TRUE(inner);
  EXPECT_EQ(inner->status, 400);
  EXPECT_EQ(json::parse(inner->body)["error"], "body: malformed JSON: the key 'a' is given twice");
  EXPECT_EQ(post("/v1/leases/s1-1/complete", {{"exit_code", 0}, {"x", {{"a", 1}}}, {"y", {{"a", 2}}}}),
            json({{"recorded", "succeeded"}}));  // one key in two objects is fine
}

// A completed lease's outcome stands: a second completion saying otherwise (exit 3, then 0) is
// answered 409 with what is stored, and so is a heartbeat arriving after the completion; a
// completion sent again with the same outcome (its answer was lost) gets the stored answer.
TEST_F(LeaseServerTest, ACompletedLeaseAnswersWhatIsStoredAndRefusesContradictionsAndHeartbeats) {
  book_.offer(submission(0));
  lease("pool-0");
  EXPECT_EQ(post("/v1/leases/s1-1/complete", {{"exit_code", 3}}), json({{"recorded", "failed"}}));
  json again = post("/v1/leases/s1-1/complete", {{"exit_code", 0}}, 409);
  EXPECT_EQ(again["recorded"], "failed");
  EXPECT_EQ(again["error"], "lease s1-1 was already completed: recorded failed (a second completion changes nothing)");
  json beat = post("/v1/leases/s1-1/heartbeat", json::object(), 409);
  EXPECT_EQ(beat["recorded"], "failed");
  EXPECT_EQ(beat["error"], "lease s1-1 was already completed: recorded failed (no heartbeat needed)");
  EXPECT_EQ(post("/v1/leases/s1-1/complete", {{"exit_code", 3}}), json({{"recorded", "failed"}}));
  std::vector<LeaseEvent> happened = events();
  ASSERT_EQ(happened.size(), 2u);  // started, failed: nothing else
  EXPECT_EQ(happened[1].kind, LeaseEvent::Kind::kFailed);
  EXPECT_EQ(happened[1].event.exit_code, 3);
}

// 1,000 unauthenticated clients connect and send nothing: a worker's heartbeat and its next
// lease are still answered (each used to wait behind them for a thread: 200 such connections
// delayed a heartbeat 50 s past a 20 s lease). The client's own 10 s timeout is the only bound.
TEST_F(LeaseServerTest, AThousandIdleConnectionsDoNotDelayHeartbeatsOrCompletions) {
  book_.offer(submission(0));
  ASSERT_EQ(lease("pool-0")["lease"]["id"], "s1-1");
  test_support::IdleConnections crowd(server_.port(), 1000);
  EXPECT_EQ(crowd.connected(), 1000);
  client_.set_read_timeout(std::chrono::seconds(10));
  client_.set_connection_timeout(std::chrono::seconds(10));
  auto beat = client_.Post("/v1/leases/s1-1/heartbeat", "{}", "application/json");
  ASSERT_TRUE(beat) << "no answer to a heartbeat under 1,000 idle connections: " << httplib::to_string(beat.error());
  EXPECT_EQ(beat->status, 200);
  EXPECT_EQ(post("/v1/leases/s1-1/complete", {{"exit_code", 0}}), json({{"recorded", "succeeded"}}));
}

// A body over 64 KiB is answered 413 from its Content-Length, before it is read into memory.
TEST_F(LeaseServerTest, OversizedBodyIsRefusedWith413) {
  book_.offer(submission(0));
  std::string huge = R"({"worker": "pool-0", "padding": ")" + std::string(65 * 1024, 'x') + "\"}";
  auto response = client_.Post("/v1/lease", huge, "application/json");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 413);
  EXPECT_EQ(book_.status().offered, 1);  // nothing leased
  EXPECT_EQ(lease("pool-0")["action"], "work");  // the server still serves
}

// With a token, a request without it or with another one is answered 401 and leases nothing.
TEST(LeaseServerTokenTest, RequestsWithoutTheTokenAreRefusedWith401) {
  ManualClock clock{1 * kSecond};
  LeaseBook book(clock, {10 * kSecond, 3 * kSecond, 50 * data::kMicrosPerMilli}, "s1");
  LeaseServer server(book, "catchup-1", 2, "127.0.0.1", 0, "a-lease-token");
  data::WorkItem item = range_item(0);
  book.offer(test_support::loose_submission(1, item, 1, "w000"));
  httplib::Client client("127.0.0.1", server.port());
  auto bare = client.Post("/v1/lease", R"({"worker": "intruder"})", "application/json");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->status, 401);
  EXPECT_EQ(json::parse(bare->body)["error"],
            "missing or wrong lease token: send Authorization: Bearer $MILLRACE_LEASE_TOKEN");
  for (const char* wrong : {"a-lease-toke", "a-lease-tokenX", "b-lease-token", ""}) {
    client.set_bearer_token_auth(wrong);
    auto answer = client.Post("/v1/lease", R"({"worker": "intruder"})", "application/json");
    ASSERT_TRUE(answer) << wrong;
    EXPECT_EQ(answer->status, 401) << wrong;
  }
  EXPECT_EQ(book.status().offered, 1);
  client.set_bearer_token_auth("a-lease-token");
  auto right = client.Post("/v1/lease", R"({"worker": "pool-0"})", "application/json");
  ASSERT_TRUE(right);
  EXPECT_EQ(right->status, 200) << right->body;
  EXPECT_EQ(book.status().offered, 0);
  server.accept_token("an-adopted-pool-token");  // both are accepted from now on
  client.set_bearer_token_auth("an-adopted-pool-token");
  auto adopted = client.Post("/v1/leases/s1-1/heartbeat", "{}", "application/json");
  ASSERT_TRUE(adopted);
  EXPECT_EQ(adopted->status, 200) << adopted->body;
}

TEST_F(LeaseServerTest, NothingToDoIsWaitAndTheRunsEndIsExit) {
  EXPECT_EQ(lease("pool-0"), json({{"action", "wait"}}));
  book_.close();
  EXPECT_EQ(lease("pool-0"), json({{"action", "exit"}}));
}

TEST_F(LeaseServerTest, AskingAgainWhileHoldingALeaseAbandonsIt) {
  book_.offer(submission(0));
  lease("pool-0");
  EXPECT_EQ(lease("pool-0")["action"], "wait");  // its container restarted
  std::vector<LeaseEvent> happened = events();
  ASSERT_EQ(happened.size(), 2u);
  EXPECT_EQ(happened[1].kind, LeaseEvent::Kind::kFailed);
  EXPECT_EQ(happened[1].event.reason, kLeaseAbandoned);
}

// A book whose one item r0 pool-0 holds the lease of.
class LeaseBookTest : public ::testing::Test {
 protected:
  void SetUp() override {
    item.id = "r0";
    book.offer(test_support::loose_submission(1, item, 1, "w000"));
    ASSERT_EQ(book.lease("pool-0").action, LeaseOffer::Action::kWork);
  }

  ManualClock clock{1 * kSecond};
  LeaseBook book{clock, {10 * kSecond, 3 * kSecond, 200 * data::kMicrosPerMilli}, "s"};
  data::WorkItem item;
};

TEST_F(LeaseBookTest, RetiredLanesReleaseIdleWorkersButOneIsKeptWhileALeaseIsHeld) {
  auto idle_b = std::async(std::launch::async, [&] { return book.lease("pool-1").action; });
  auto idle_c = std::async(std::launch::async, [&] { return book.lease("pool-2").action; });
  while (book.status().workers_waiting < 2) std::this_thread::yield();
  book.retire("w001");
  book.retire("w002");
  std::multiset<LeaseOffer::Action> answers{idle_b.get(), idle_c.get()};
  EXPECT_EQ(answers, (std::multiset<LeaseOffer::Action>{LeaseOffer::Action::kWait, LeaseOffer::Action::kExit}));
  EXPECT_EQ(book.status().workers_released, 1);
  ASSERT_EQ(book.complete("s-1", 0, "", std::nullopt), LeaseReply::kSucceeded);  // no lease held any more
  EXPECT_EQ(book.lease("pool-1").action, LeaseOffer::Action::kExit);
  book.offer(test_support::loose_submission(2, item, 2, "w002"));  // a lane needed again
  EXPECT_EQ(book.lease("pool-1").action, LeaseOffer::Action::kWork);
}

// pool-0 holds the one lease; pool-2 asks for work and freezes (its request waits; it never
// asks again); a lane retires; pool-1, alive, asks again. Before, pool-2's request counted as the
// idle worker kept, so pool-1 was told to exit at once; when pool-0's lease expired, its retry
// went to no live worker: the run stalled. The worker heard from last is kept instead.
TEST_F(LeaseBookTest, AWorkerFrozenWhileWaitingIsNotTheOneKeptSoTheRetryOfAnExpiredLeaseFindsALiveWorker) {
  auto frozen = std::async(std::launch::async, [&] { return book.lease("pool-2").action; });
  while (book.status().workers_waiting < 1) std::this_thread::yield();
  book.retire("w002");
  ASSERT_EQ(book.lease("pool-1").action, LeaseOffer::Action::kWait)
      << "pool-1, the one live worker, told to exit: no worker would ask for the retry below";
  EXPECT_EQ(frozen.get(), LeaseOffer::Action::kExit);  // read when it thaws
  EXPECT_EQ(book.status().workers_released, 1);

  clock.advance(12 * kSecond);  // pool-0 died holding its lease
  const std::vector<LeaseEvent> expired = book.wait_events(0);
  ASSERT_EQ(expired.size(), 2u);  // started, then failed
  EXPECT_EQ(expired[1].event.reason, kLeaseExpired);
  book.offer(test_support::loose_submission(2, item, 2, "w000"));  // the scheduler's retry
  const LeaseOffer retry = book.lease("pool-1");
  ASSERT_EQ(retry.action, LeaseOffer::Action::kWork);
  EXPECT_EQ(retry.lease.submission.attempt, 2);
}

}  // namespace
}  // namespace millrace::cluster_adapter
