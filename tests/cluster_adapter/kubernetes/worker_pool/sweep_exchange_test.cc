// The lease API serving a fanned-out sweep (sweep_exchange.h): bundles by SHA-256 to token
// holders only; a shard's success must carry results the sweep's check accepts, else it is
// refused naming why (and the lease stays held, to expire); results are kept once, from the
// completion recorded; a late completion of an expired lease is refused and not kept; results
// sent to a run that is no sweep are refused; a completion's body may reach 1 MiB, no more.
#include "cluster_adapter/kubernetes/worker_pool/lease_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "cluster_adapter/kubernetes/worker_pool/lease_book.h"
#include "data/error.h"
#include "tests/support/loose_plans.h"
#include "tests/support/manual_clock.h"

namespace millrace::cluster_adapter {
namespace {

using nlohmann::json;
using test_support::ManualClock;

constexpr data::Micros kSecond = data::kMicrosPerSecond;
const std::string kSha(64, 'a');

class SweepLeaseServerTest : public ::testing::Test {
 protected:
  SweepLeaseServerTest()
      : book_(clock_, {10 * kSecond, 3 * kSecond, 50 * data::kMicrosPerMilli}, "s1"),
        sweep_(std::make_shared<SweepExchange>()),
        server_(book_, "sweep-1", 4, "127.0.0.1", 0, "the-token", sweep_),
        client_("127.0.0.1", server_.port()) {
    client_.set_bearer_token_auth("the-token");
    sweep_->add_bundle(kSha, "the bundle's bytes");
    // Two replicas a shard, each an object.
    sweep_->expect_results([](const std::string& item, const json& results) {
      if (results.size() != 2) throw data::Error(item + " results", "must be an array of 2 replica results");
    });
    item_.id = "shard-0";
    item_.payload = "{}";
    book_.offer(test_support::loose_submission(1, item_, 1, "w000"));
  }

  httplib::Result complete(const json& body) {
    return client_.Post("/v1/leases/s1-1/complete", body.dump(), "application/json");
  }
  void lease() {
    auto answer = client_.Post("/v1/lease", R"({"worker": "pool-0"})", "application/json");
    ASSERT_TRUE(answer);
    ASSERT_EQ(json::parse(answer->body)["action"], "work") << answer->body;
  }
  static std::string error_of(const httplib::Result& answer) { return json::parse(answer->body)["error"]; }

  ManualClock clock_{1 * kSecond};
  LeaseBook book_;
  std::shared_ptr<SweepExchange> sweep_;
  LeaseServer server_;
  httplib::Client client_;
  data::WorkItem item_;
};

TEST_F(SweepLeaseServerTest, ABundleIsServedByItsHashToTokenHoldersOnly) {
  auto bundle = client_.Get(("/v1/bundles/" + kSha).c_str());
  ASSERT_TRUE(bundle);
  EXPECT_EQ(bundle->status, 200);
  EXPECT_EQ(bundle->body, "the bundle's bytes");
  auto unknown = client_.Get(("/v1/bundles/" + std::string(64, 'b')).c_str());
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  EXPECT_EQ(error_of(unknown), "no bundle " + std::string(64, 'b') + " in this run");
  httplib::Client stranger("127.0.0.1", server_.port());
  auto refused = stranger.Get(("/v1/bundles/" + kSha).c_str());
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
}

TEST_F(SweepLeaseServerTest, AShardsSuccessMustCarryResultsTheSweepAcceptsAndTheFirstRecordedAreKept) {
  lease();
  auto bare = complete({{"exit_code", 0}});
  EXPECT_EQ(bare->status, 400);
  EXPECT_EQ(error_of(bare), "body: a sweep shard's success carries its results (\"results\": [...])");
  auto short_one = complete({{"exit_code", 0}, {"results", json::array({json::object()})}});
  EXPECT_EQ(short_one->status, 400);
  EXPECT_EQ(error_of(short_one), "body: shard-0 results: must be an array of 2 replica results");
  auto not_array = complete({{"exit_code", 0}, {"results", "two"}});
  EXPECT_EQ(error_of(not_array), "body: results must be an array (a shard's replica results)");
  auto with_failure = complete({{"exit_code", 2}, {"results", json::array()}});
  EXPECT_EQ(error_of(with_failure), "body: results come with exit_code 0 only");
  EXPECT_TRUE(sweep_->results().empty());
  EXPECT_EQ(book_.status().leases.size(), 1u);  // none of those ended the lease

  const json first = json::array({{{"n", 1}}, {{"n", 2}}});
  auto taken = complete({{"exit_code", 0}, {"results", first}});
  EXPECT_EQ(taken->status, 200) << taken->body;
  auto again = complete({{"exit_code", 0}, {"results", json::array({{{"n", 3}}, {{"n", 4}}})}});
  EXPECT_EQ(again->status, 200);  // the same outcome answered again, its results not kept
  EXPECT_EQ(sweep_->results(), (std::map<std::string, json>{{"shard-0", first}}));
}

TEST_F(SweepLeaseServerTest, ALateCompletionOfAnExpiredLeaseIsRefusedAndItsResultsAreNotKept) {
  lease();
  clock_.set(12 * kSecond);
  auto late = complete({{"exit_code", 0}, {"results", json::array({{{"n", 1}}, {{"n", 2}}})}});
  EXPECT_EQ(late->status, 410);
  EXPECT_TRUE(sweep_->results().empty());
}

TEST_F(SweepLeaseServerTest, ACompletionMayCarryUpToOneMebibyteAndNoMore) {
  lease();
  const std::string padding(1024 * 1024, 'x');
  auto over = complete({{"exit_code", 0}, {"results", json::array({padding, "b"})}});
  ASSERT_TRUE(over);
  EXPECT_EQ(over->status, 413);
  auto within = complete({{"exit_code", 0}, {"results", json::array({padding.substr(0, 1000 * 1000), "b"})}});
  ASSERT_TRUE(within);
  EXPECT_EQ(within->status, 200) << within->body.substr(0, 200);
}

TEST(LeaseServerWithoutSweepTest, ResultsSentToARunThatIsNoSweepAreRefused) {
  ManualClock clock{1 * kSecond};
  LeaseBook book(clock, {10 * kSecond, 3 * kSecond, 50 * data::kMicrosPerMilli}, "s1");
  LeaseServer server(book, "catchup-1", 2, "127.0.0.1", 0);
  data::WorkItem item;
  item.id = "r0";
  book.offer(test_support::loose_submission(1, item, 1, "w000"));
  httplib::Client client("127.0.0.1", server.port());
  ASSERT_TRUE(client.Post("/v1/lease", R"({"worker": "pool-0"})", "application/json"));
  auto answer = client.Post("/v1/leases/s1-1/complete", R"({"exit_code": 0, "results": []})", "application/json");
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 400);
  EXPECT_EQ(json::parse(answer->body)["error"], "body: results are a sweep shard's; this run expects none");
  auto bundle = client.Get(("/v1/bundles/" + kSha).c_str());
  ASSERT_TRUE(bundle);
  EXPECT_EQ(bundle->status, 404);
}

}  // namespace
}  // namespace millrace::cluster_adapter
