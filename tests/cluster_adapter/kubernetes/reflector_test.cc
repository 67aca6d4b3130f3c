// The Reflector on its own, against a tiny list/watch source (one collection over loopback
// HTTP, answering from a script the test writes): list, then watch from the list's version;
// watch again from the last version seen when a stream ends (bookmarks move it without an
// event); list again on 410 Gone, as a status or as an ERROR event in the stream; other errors
// are reported as trouble naming the collection, retried, and cleared once the API answers.
#include "cluster_adapter/kubernetes/reflector.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "tests/cluster_adapter/kubernetes/k8s_test_support.h"

namespace millrace::cluster_adapter {
namespace {

using nlohmann::json;

constexpr const char* kCollection = "/apis/batch/v1/namespaces/ns/jobs";

json job(const std::string& name, const std::string& version) {
  return {{"metadata", {{"name", name}, {"resourceVersion", version}}}};
}

// Serves GET kCollection: lists and watches answered in script order; each request is logged
// as "list" or "watch from VERSION". A watch with nothing scripted stays open, sending nothing.
class ListWatchSource {
 public:
  struct Answer {
    int status = 200;
    std::string body;
  };

  ListWatchSource() {
    server_.Get(kCollection, [this](const httplib::Request& request, httplib::Response& response) {
      bool watch = request.has_param("watch");
      std::optional<Answer> answer;
      {
        std::lock_guard lock(mutex_);
        log_.push_back(watch ? "watch from " + request.get_param_value("resourceVersion") : "list");
        selectors_.push_back(request.get_param_value("labelSelector"));
        std::deque<Answer>& script = watch ? watches_ : lists_;
        if (!script.empty()) {
          answer = script.front();
          script.pop_front();
        }
      }
      changed_.notify_all();
      if (!answer) {
        response.set_chunked_content_provider("application/json", [this](std::size_t, httplib::DataSink& sink) {
          std::unique_lock lock(mutex_);
          changed_.wait_for(lock, std::chrono::milliseconds(20), [this] { return closing_; });
          if (closing_) sink.done();
          return true;
        });
        return;
      }
      response.status = answer->status;
      response.set_content(answer->body, "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~ListWatchSource() {
    {
      std::lock_guard lock(mutex_);
      closing_ = true;
    }
    changed_.notify_all();
    server_.stop();
    thread_.join();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  void list(const std::vector<json>& items, const std::string& version) {
    add(lists_, {200, json{{"metadata", {{"resourceVersion", version}}}, {"items", items}}.dump()});
  }
  void list_fails(int status, const std::string& message) { add(lists_, {status, status_body(status, message)}); }
  // A watch answered with these events, then ended by the server.
  void watch(const std::vector<json>& events) {
    std::string lines;
    for (const json& e : events) lines += e.dump() + "\n";
    add(watches_, {200, lines});
  }
  void watch_fails(int status, const std::string& message) { add(watches_, {status, status_body(status, message)}); }

  // Waits (a hang guard, not a timing assertion) until `n` requests came; returns the log.
  std::vector<std::string> requests(std::size_t n) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, std::chrono::seconds(20), [&] { return log_.size() >= n; });
    return std::vector<std::string>(log_.begin(), log_.begin() + std::min(n, log_.size()));
  }
  std::vector<std::string> selectors() {
    std::lock_guard lock(mutex_);
    return selectors_;
  }

 private:
  static std::string status_body(int status, const std::string& message) {
    return json{{"kind", "Status"}, {"status", "Failure"}, {"code", status}, {"message", message}}.dump();
  }
  void add(std::deque<Answer>& script, Answer answer) {
    std::lock_guard lock(mutex_);
    script.push_back(std::move(answer));
  }

  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Answer> lists_;
  std::deque<Answer> watches_;
  std::vector<std::string> log_;
  std::vector<std::string> selectors_;
  bool closing_ = false;
};

// What the reflector told its handlers, from its thread.
class Seen {
 public:
  ReflectorHandlers handlers() {
    return {[this](std::vector<json> items) { add("list of " + std::to_string(items.size())); },
            [this](const std::string& type, const json& object) {
              add(type + " " + object["metadata"].value("name", ""));
            },
            [this](const std::string& problem) { add(problem.empty() ? "answering" : "trouble: " + problem); }};
  }
  // Waits until `what` was seen (a hang guard) and returns everything seen so far.
  std::vector<std::string> until(const std::string& what) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, std::chrono::seconds(20), [&] { return std::count(seen_.begin(), seen_.end(), what) > 0; });
    return seen_;
  }
  std::vector<std::string> all() {
    std::lock_guard lock(mutex_);
    return seen_;
  }

 private:
  void add(std::string what) {
    {
      std::lock_guard lock(mutex_);
      seen_.push_back(std::move(what));
    }
    changed_.notify_all();
  }
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> seen_;
};

class ReflectorTest : public ::testing::Test {
 protected:
  KubeConfig config() {
    KubeConfig c;
    c.server = source_.url();
    c.token = "test-token";
    c.origin = "test";
    return c;
  }
  std::unique_ptr<Reflector> start() {
    return std::make_unique<Reflector>(client_, kCollection, "app=catchup,run=7", seen_.handlers(), fast_backoff());
  }

  ListWatchSource source_;
  KubeClient client_{config(), fast_backoff()};
  Seen seen_;
};

TEST_F(ReflectorTest, ListsThenWatchesFromTheListsVersionAndAgainFromTheLastEventsVersion) {
  source_.list({job("a", "8")}, "10");
  source_.watch({{{"type", "ADDED"}, {"object", job("b", "11")}}, {{"type", "MODIFIED"}, {"object", job("a", "12")}}});
  auto reflector = start();
  EXPECT_EQ(source_.requests(3), (std::vector<std::string>{"list", "watch from 10", "watch from 12"}));
  std::vector<std::string> seen = seen_.until("MODIFIED a");
  EXPECT_EQ(seen.front(), "answering");
  seen.erase(std::remove(seen.begin(), seen.end(), "answering"), seen.end());
  EXPECT_EQ(seen, (std::vector<std::string>{"list of 1", "ADDED b", "MODIFIED a"}));
  EXPECT_EQ(source_.selectors()[0], "app=catchup,run=7");
  EXPECT_EQ(reflector->lists(), 1);
}

TEST_F(ReflectorTest, ABookmarkMovesTheVersionWithoutAnEvent) {
  source_.list({}, "10");
  source_.watch({{{"type", "BOOKMARK"}, {"object", job("", "20")}}});
  auto reflector = start();
  EXPECT_EQ(source_.requests(3), (std::vector<std::string>{"list", "watch from 10", "watch from 20"}));
  for (const std::string& s : seen_.all()) EXPECT_EQ(s.find("BOOKMARK"), std::string::npos) << s;
}

TEST_F(ReflectorTest, GoneAsAStatusListsAgain) {
  source_.list({job("a", "5")}, "10");
  source_.watch_fails(410, "too old resource version: 10 (40)");
  source_.list({job("a", "5"), job("b", "41")}, "42");
  auto reflector = start();
  EXPECT_EQ(source_.requests(4), (std::vector<std::string>{"list", "watch from 10", "list", "watch from 42"}));
  seen_.until("list of 2");
  EXPECT_EQ(reflector->lists(), 2);
}

TEST_F(ReflectorTest, GoneAsAnErrorEventInsideTheStreamListsAgain) {
  source_.list({}, "10");
  source_.watch({{{"type", "ADDED"}, {"object", job("a", "11")}},
                 {{"type", "ERROR"}, {"object", {{"kind", "Status"}, {"code", 410}, {"message", "too old"}}}}});
  source_.list({job("a", "11")}, "50");
  auto reflector = start();
  EXPECT_EQ(source_.requests(4), (std::vector<std::string>{"list", "watch from 10", "list", "watch from 50"}));
  seen_.until("list of 1");
}

TEST_F(ReflectorTest, AnotherErrorEventIsTroubleNamingTheCollectionAndTheWatchResumesFromTheSameVersion) {
  source_.list({}, "10");
  source_.watch({{{"type", "ADDED"}, {"object", job("a", "11")}},
                 {{"type", "ERROR"}, {"object", {{"kind", "Status"}, {"code", 500}, {"message", "etcd is slow"}}}}});
  auto reflector = start();
  EXPECT_EQ(source_.requests(3), (std::vector<std::string>{"list", "watch from 10", "watch from 11"}));
  std::string trouble;
  for (const std::string& s : seen_.all()) {
    if (s.rfind("trouble: ", 0) == 0) trouble = s;
  }
  EXPECT_NE(trouble.find(kCollection), std::string::npos) << trouble;
  EXPECT_NE(trouble.find("etcd is slow"), std::string::npos) << trouble;
}

TEST_F(ReflectorTest, AFailedListIsRetriedReportedAsTroubleAndClearedOnceTheApiAnswers) {
  source_.list_fails(503, "apiserver is starting");
  source_.list({job("a", "3")}, "10");
  auto reflector = start();
  EXPECT_EQ(source_.requests(3), (std::vector<std::string>{"list", "list", "watch from 10"}));
  std::vector<std::string> seen = seen_.until("list of 1");
  ASSERT_GE(seen.size(), 3u);
  EXPECT_EQ(seen[0].rfind("trouble: ", 0), 0u) << seen[0];
  EXPECT_NE(seen[0].find(kCollection), std::string::npos) << seen[0];
  EXPECT_NE(seen[0].find("apiserver is starting"), std::string::npos) << seen[0];
  auto answering = std::find(seen.begin(), seen.end(), "answering");
  auto listed = std::find(seen.begin(), seen.end(), "list of 1");
  EXPECT_LT(answering, listed) << "the trouble is cleared before the list is handed over";
}

}  // namespace
}  // namespace millrace::cluster_adapter
