// The REST client against the loopback API test server: typed errors with the Status object's
// reason, retries with backoff on 5xx/429 (Retry-After), giving up, no-response errors, both
// DELETE response shapes, and a 410 Gone delivered inside a 200 watch stream.
#include "cluster_adapter/kubernetes/kube_client.h"

#include <gtest/gtest.h>

#include "tests/cluster_adapter/kubernetes/k8s_test_support.h"

namespace millrace::cluster_adapter {
namespace {

using nlohmann::json;

const std::string kJobs = "/apis/batch/v1/namespaces/default/jobs";

json job(const std::string& name, const std::string& restart_policy = "Never") {
  return {{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", {{"name", name}}},
          {"spec", {{"template", {{"spec", {{"restartPolicy", restart_policy},
                                            {"containers", {{{"name", "c"}, {"image", "i"}}}}}}}}}}};
}

KubeApiError error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const KubeApiError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a KubeApiError";
  return KubeApiError("", -1, "", "");
}

class KubeClientOnLoopbackServer : public ::testing::Test {
 protected:
  FakeApiServer server_;
  KubeClient client_{test_server_config(server_), fast_backoff()};
};

TEST_F(KubeClientOnLoopbackServer, NotFoundCarriesStatusReasonAndMessageWithoutRetry) {
  KubeApiError e = error_of([&] { client_.call("GET", kJobs + "/missing"); });
  EXPECT_EQ(e.status(), 404);
  EXPECT_EQ(e.reason(), "NotFound");
  EXPECT_EQ(e.message(), "jobs.batch \"missing\" not found");
  EXPECT_FALSE(e.retryable());
  EXPECT_EQ(e.input(), server_.url() + kJobs + "/missing");
}

TEST_F(KubeClientOnLoopbackServer, CreateAnswers201ThenAlreadyExistsThenInvalid) {
  json created = client_.call("POST", kJobs, job("one"));
  EXPECT_EQ(created["metadata"]["name"], "one");
  EXPECT_EQ(server_.record().jobs_created, 1);
  EXPECT_EQ(client_.send("POST", kJobs, job("two").dump()).status, 201);
  KubeApiError conflict = error_of([&] { client_.call("POST", kJobs, job("one")); });
  EXPECT_EQ(conflict.status(), 409);
  EXPECT_EQ(conflict.reason(), "AlreadyExists");
  KubeApiError invalid = error_of([&] { client_.call("POST", kJobs, job("three", "Always")); });
  EXPECT_EQ(invalid.status(), 422);
  EXPECT_EQ(invalid.reason(), "Invalid");
}

TEST_F(KubeClientOnLoopbackServer, ServerErrorsAreRetriedWithDoublingBackoff) {
  server_.inject_errors(3, 500);
  std::vector<data::Micros> delays;
  json list = client_.call("GET", kJobs, std::nullopt, {},
                           [&](const KubeApiError& e, data::Micros delay) {
                             EXPECT_EQ(e.status(), 500);
                             delays.push_back(delay);
                           });
  EXPECT_EQ(list["kind"], "JobList");
  EXPECT_EQ(delays, (std::vector<data::Micros>{1000, 2000, 4000}));
}

TEST_F(KubeClientOnLoopbackServer, TooManyRequestsCarriesRetryAfter) {
  server_.inject_errors(1, 429, 7);
  HttpResponse response = client_.send("GET", kJobs);
  EXPECT_EQ(response.status, 429);
  KubeApiError e = client_.error_from(kJobs, response);
  EXPECT_EQ(e.reason(), "TooManyRequests");
  EXPECT_EQ(e.retry_after(), 7 * data::kMicrosPerSecond);
  EXPECT_TRUE(e.retryable());
}

TEST(Backoff, DoublesUpToTheMaxAndHonoursALongerRetryAfter) {
  Backoff backoff({100, 350, 0});
  EXPECT_EQ(backoff.next_delay(), 100);
  EXPECT_EQ(backoff.next_delay(), 200);
  EXPECT_EQ(backoff.next_delay(), 350);
  EXPECT_EQ(backoff.next_delay(5000), 5000);
  EXPECT_EQ(backoff.next_delay(10), 350);
  backoff.reset();
  EXPECT_EQ(backoff.next_delay(), 100);
  EXPECT_FALSE(backoff.exhausted());
}

TEST_F(KubeClientOnLoopbackServer, GivesUpAfterThePolicysAttemptsWithTheLastError) {
  KubeClient client(test_server_config(server_), {1000, 2000, 3});
  server_.inject_errors(10, 503);
  KubeApiError e = error_of([&] { client.call("GET", kJobs); });
  EXPECT_EQ(e.status(), 503);
  EXPECT_EQ(e.reason(), "ServiceUnavailable");
  EXPECT_EQ(server_.record().injected_errors_served, 3);
}

TEST(KubeClient, NoServerIsARetryableNoResponseError) {
  KubeConfig config;
  config.server = "http://127.0.0.1:1";  // a privileged port nothing here listens on
  KubeClient client(config, {1000, 2000, 2}, data::kMicrosPerSecond);
  KubeApiError e = error_of([&] { client.call("GET", kJobs); });
  EXPECT_EQ(e.status(), 0);
  EXPECT_TRUE(e.retryable());
  EXPECT_NE(std::string(e.what()).find("no response"), std::string::npos);
}

TEST_F(KubeClientOnLoopbackServer, StopRequestEndsRetrying) {
  std::stop_source stop;
  stop.request_stop();
  KubeApiError e = error_of([&] { client_.call("GET", kJobs, std::nullopt, stop.get_token()); });
  EXPECT_EQ(e.reason(), "Stopped");
}

TEST_F(KubeClientOnLoopbackServer, DeleteAnswersAStatusWithBackgroundAndTheJobWithFinalizerOtherwise) {
  client_.call("POST", kJobs, job("bg"));
  client_.call("POST", kJobs, job("orphaned"));
  json background = client_.call("DELETE", kJobs + "/bg", json{{"propagationPolicy", "Background"}});
  EXPECT_EQ(background["kind"], "Status");
  EXPECT_EQ(background["status"], "Success");
  json orphan = client_.call("DELETE", kJobs + "/orphaned");
  EXPECT_EQ(orphan["kind"], "Job");
  EXPECT_EQ(orphan["metadata"]["finalizers"], json({"orphan"}));
  EXPECT_TRUE(orphan["metadata"].contains("deletionTimestamp"));
  EXPECT_EQ(server_.record().deletes_without_policy, 1);
  json by_query = error_of([&] { client_.call("DELETE", kJobs + "/bg?propagationPolicy=Background"); }).status();
  EXPECT_EQ(by_query, 404);
}

TEST_F(KubeClientOnLoopbackServer, WatchFromAnExpiredVersionGetsGoneInsideA200Stream) {
  client_.call("POST", kJobs, job("a"));
  std::string rv = client_.call("GET", kJobs)["metadata"]["resourceVersion"];
  server_.expire_watches();
  std::vector<json> events;
  int status = client_.stream(kJobs + "?watch=1&resourceVersion=" + rv,
                              [&](std::string_view line) { events.push_back(json::parse(line)); }, {});
  EXPECT_EQ(status, 200);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["type"], "ERROR");
  EXPECT_EQ(events[0]["object"]["code"], 410);
  EXPECT_EQ(events[0]["object"]["reason"], "Expired");
}

TEST_F(KubeClientOnLoopbackServer, WatchDeliversChangesAfterTheResourceVersionAsLines) {
  std::string rv = client_.call("GET", kJobs)["metadata"]["resourceVersion"];
  client_.call("POST", kJobs, job("w"));
  std::vector<std::string> types;
  int status = client_.stream(kJobs + "?watch=1&timeoutSeconds=1&resourceVersion=" + rv,
                              [&](std::string_view line) { types.push_back(json::parse(line)["type"]); }, {});
  EXPECT_EQ(status, 200);
  ASSERT_FALSE(types.empty());
  EXPECT_EQ(types[0], "ADDED");
}

}  // namespace
}  // namespace millrace::cluster_adapter
