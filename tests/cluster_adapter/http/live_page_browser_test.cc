// The live page in a real browser (Debian's chromium, headless): the figures it shows are those
// of /status fetched at the same moment, during a real local run of a scaled-down bundled plan
// (the top 16 ranges of the Stellar pubnet plan, its ETA from a model fitted on the bundled
// recording) whose gated workers hold the run still while the page is read; a screenshot of it
// is kept in the build tree (test-artefacts/live-page.png). And text from a run is shown as
// text: an item id holding <script> runs nothing, a credential in a reason is masked; a
// Kubernetes run's cluster state (API health, unschedulable pods) is shown.
#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster_adapter/http/status_server.h"
#include "cluster_adapter/kubernetes/kubernetes_status.h"
#include "cluster_adapter/kubernetes/worker_pool/worker_pool_status.h"
#include "cluster_adapter/realtime/attempt_timeline.h"
#include "cluster_adapter/realtime/live_status.h"
#include "tests/cli/cli_process.h"
#include "tests/cluster_adapter/http/page_dom.h"
#include "tests/support/headless_chromium.h"

namespace millrace {
namespace {

using test_support::attribute;
using test_support::HeadlessChromium;
using test_support::tag_by_id;
using test_support::tag_with;
using test_support::tags_having;
using test_support::text_of;

// A figure of the page: the data-value (or data-us) attribute of the element with that id.
std::string figure(const std::string& dom, const std::string& id, const std::string& name = "data-value") {
  return attribute(tag_by_id(dom, id), name).value_or("(no " + name + " on #" + id + ")");
}

std::string number(const nlohmann::json& value) { return value.is_null() ? "" : value.dump(); }

// (item, attempt, outcome) of every bar of the timeline, and of every attempt of /status.
using Bar = std::tuple<std::string, std::string, std::string>;
std::multiset<Bar> page_bars(const std::string& dom) {
  std::multiset<Bar> bars;
  for (const std::string& tag : tags_having(dom, "data-outcome")) {
    bars.emplace(attribute(tag, "data-item").value_or(""), attribute(tag, "data-attempt").value_or(""),
                 attribute(tag, "data-outcome").value_or(""));
  }
  return bars;
}
std::multiset<Bar> status_bars(const nlohmann::json& status) {
  std::multiset<Bar> bars;
  for (const nlohmann::json& worker : status["recent_attempts"]) {
    for (const nlohmann::json& a : worker["attempts"]) {
      bars.emplace(a["item"].get<std::string>(), a["attempt"].dump(), a["outcome"].get<std::string>());
    }
  }
  return bars;
}

class LivePageTest : public cli_test::CliRunTest {
 protected:
  void SetUp() override {
    CliRunTest::SetUp();
    browser.emplace(dir);
    ASSERT_EQ(HeadlessChromium::missing(), "");
  }
  std::string url(int port, const std::string& path = "/") {
    return "http://127.0.0.1:" + std::to_string(port) + path;
  }
  std::optional<HeadlessChromium> browser;
};

// --- text from the run is text ----------------------------------------------------------------

TEST_F(LivePageTest, TextFromTheRunIsEscapedCredentialsMaskedAndTheClusterStateShown) {
  const std::string script_id = "<script>document.title='pwned'</script>";
  const std::string image_worker = "<img src=x onerror=\"document.title='pwned'\">";
  scheduler::StatusReport status;
  status.at = 10'000'000;
  status.policy = "fixed-pool";
  status.target = 2;
  status.num_items = 3;
  status.num_remain = 1;
  status.num_succeeded = 1;
  status.jobs_failed = {scheduler::FailedJob{script_id, "9/10", image_worker, 2,
                                             "HTTP 500: Authorization: Bearer sekret-token-123"}};
  cluster_adapter::AttemptTimeline timeline;
  data::Attempt failed;
  failed.item_id = script_id;
  failed.number = 2;
  failed.worker = image_worker;
  failed.start = 2'000'000;
  failed.end = 6'000'000;
  failed.outcome = data::Outcome::kFailed;
  failed.failure_reason = "exit";
  timeline.observe(failed);
  nlohmann::json document = scheduler::to_json(status);
  cluster_adapter::add_live_figures(
      document, status, cluster_adapter::LiveFigures{std::nullopt, 2, 0, timeline.to_json()},
      [](const std::string& item, int n) { return std::vector<std::string>{"/logs/" + item + "." + std::to_string(n) + ".err"}; });

  cluster_adapter::KubernetesClusterStatus cluster;
  cluster.api.reachable = false;
  cluster.api.unreachable_since = 4'000'000;
  cluster.api.consecutive_failures = 7;
  cluster.api.failing = {cluster_adapter::FailingSource{"watch jobs", "connection refused", 4'000'000, 7}};
  cluster.unschedulable = {cluster_adapter::UnschedulableAttempt{"run-1-x-1", script_id, 1, "run-1-x-1-pod", 1'000'000,
                                                                 "0/3 nodes are available: <b>Insufficient cpu</b>"}};
  document["cluster"] = to_json(cluster, status.at);

  cluster_adapter::StatusServer server(0);
  server.publish({document.dump(), ""});
  const std::string dom = browser->dump_dom(url(server.port()));
  ASSERT_NE(dom.find("id=\"failures\""), std::string::npos) << dom;

  // Shown as text, where the page puts it: the failure's row and cells, the timeline's bar.
  const std::string row = tag_with(dom, "data-item", script_id);
  EXPECT_FALSE(row.empty()) << dom;
  EXPECT_NE(dom.find("&lt;script&gt;document.title='pwned'&lt;/script&gt;"), std::string::npos) << dom;
  EXPECT_NE(dom.find("&lt;img src=x onerror=\"document.title='pwned'\"&gt;"), std::string::npos) << dom;
  EXPECT_NE(dom.find("/logs/&lt;script&gt;document.title='pwned'&lt;/script&gt;.2.err"), std::string::npos) << dom;
  EXPECT_EQ(page_bars(dom), status_bars(document));
  // Nothing ran or was made of it: one script element (the page's), no image, the title intact.
  std::size_t scripts = 0;
  for (std::size_t at = dom.find("<script"); at != std::string::npos; at = dom.find("<script", at + 1)) ++scripts;
  EXPECT_EQ(scripts, 1u) << dom;
  EXPECT_EQ(dom.find("<img"), std::string::npos) << dom;
  EXPECT_NE(dom.find("<title>millrace: live run</title>"), std::string::npos) << dom;
  // The status server's redaction covers what the page shows.
  EXPECT_EQ(dom.find("sekret-token-123"), std::string::npos) << dom;
  EXPECT_NE(dom.find("Authorization: [redacted]"), std::string::npos) << dom;
  EXPECT_EQ(figure(dom, "failed"), "1");
  // The cluster's state: the API unreachable for 6 s, the pod waiting for a node 9 s, its reason as text.
  EXPECT_EQ(figure(dom, "api-state"), "false");
  EXPECT_EQ(text_of(dom, "api-state"), "unreachable for 6s");
  EXPECT_EQ(figure(dom, "unschedulable-count"), "1");
  EXPECT_NE(dom.find("<td>0/3 nodes are available: &lt;b&gt;Insufficient cpu&lt;/b&gt;</td>"), std::string::npos) << dom;
  EXPECT_NE(dom.find("<td>9s</td>"), std::string::npos) << dom;
  EXPECT_NE(dom.find("retrying watch jobs (7 in a row): connection refused"), std::string::npos) << dom;
  EXPECT_EQ(figure(dom, "eta-expected", "data-us"), "");
  EXPECT_EQ(text_of(dom, "eta-expected"), "?");
  // No model: no prediction and nothing learnt of one, both hidden.
  EXPECT_TRUE(attribute(tag_by_id(dom, "prediction"), "hidden").has_value()) << tag_by_id(dom, "prediction");
  EXPECT_TRUE(attribute(tag_by_id(dom, "eta-note"), "hidden").has_value()) << tag_by_id(dom, "eta-note");
}

// A worker pool's lost workers: the pods deleted (or being deleted) so that the Job makes new
// ones, each with why, a worker lost and not heard from since, and a delete the API server
// refused, in the colour of an error with its reason; a worker that came back is not shown.
TEST_F(LivePageTest, AWorkerPoolsLostAndReplacedWorkersAreNamedAndARefusedDeleteIsAnError) {
  scheduler::StatusReport status;
  status.at = 10'000'000;
  status.policy = "fixed-pool";
  status.target = 4;
  status.num_items = 4;
  status.num_remain = 1;
  nlohmann::json document = scheduler::to_json(status);
  cluster_adapter::add_live_figures(document, status,
                                    cluster_adapter::LiveFigures{std::nullopt, 1, 0, nlohmann::json::array()},
                                    [](const std::string&, int) { return std::vector<std::string>{}; });
  cluster_adapter::WorkerPoolStatus pool;
  pool.api.reachable = true;
  pool.job = "pool-sweep";
  pool.job_state = "running";
  pool.workers = 4;
  using cluster_adapter::LostWorker;
  pool.lost = {LostWorker{"pool-sweep-1-0", 3'000'000, 3'100'000, "its lease expired", "deleted", "pool-sweep-1-0"},
               LostWorker{"pool-sweep-3-0", 5'000'000, 5'100'000, "its lease expired", "deleting", "pool-sweep-3-0"},
               LostWorker{"pool-sweep-0-0", 5'500'000, 5'600'000, "its lease expired", "came back"},
               LostWorker{"pool-sweep-4", 5'800'000, 5'900'000, "its lease expired", "lost"},
               LostWorker{"pool-sweep-2-1", 6'000'000, 6'100'000, "its lease expired", "refused", "pool-sweep-2-1",
                          "403 Forbidden: pods \"pool-sweep-2-1\" is forbidden"}};
  document["cluster"] = to_json(pool, status.at);
  cluster_adapter::StatusServer server(0);
  server.publish({document.dump(), ""});
  const std::string dom = browser->dump_dom(url(server.port()));
  EXPECT_NE(dom.find("<dt>workers replaced</dt><dd>2: pod pool-sweep-1-0 deleted, its lease expired; "
                     "pod pool-sweep-3-0 deleting, its lease expired</dd>"),
            std::string::npos)
      << dom;
  EXPECT_NE(dom.find("<dt>workers lost</dt><dd>pool-sweep-4 (its lease expired, not heard from since)</dd>"),
            std::string::npos)
      << dom;
  EXPECT_EQ(dom.find("pool-sweep-0-0"), std::string::npos) << dom;  // it came back: nothing to say
  EXPECT_NE(dom.find("<dt>could not replace pool-sweep-2-1</dt><dd class=\"error\">its lease expired; deleting its "
                     "pod was refused: 403 Forbidden: pods \"pool-sweep-2-1\" is forbidden</dd>"),
            std::string::npos)
      << dom;
}

TEST_F(LivePageTest, ThePredictedMakespanAndARunOutsideItsModelAreShownBesideProgress) {
  scheduler::StatusReport status;
  status.policy = "fixed-pool";
  status.target = 2;
  status.num_items = 40;
  status.num_remain = 30;
  status.num_succeeded = 10;
  const nlohmann::json prediction = {{"source", "its plan simulated at the start (20 replicas)"},
                                     {"makespan_p10_us", 110'000'000},
                                     {"makespan_p50_us", 125'000'000},
                                     {"makespan_p90_us", 3'725'000'000}};
  // 10 ranges observed at a tenth of their predictions: outside what the model's noise allows.
  const cluster_adapter::EtaBand eta{9'000'000, 8'000'000, 12'000'000, 10, 0.1, true};
  nlohmann::json document = scheduler::to_json(status);
  cluster_adapter::add_live_figures(document, status,
                                    cluster_adapter::LiveFigures{eta, 2, 90'000'000, nlohmann::json::array(), prediction},
                                    [](const std::string&, int) { return std::vector<std::string>{}; });
  ASSERT_EQ(document["prediction"], prediction);

  cluster_adapter::StatusServer server(0);
  server.publish({document.dump(), ""});
  const std::string dom = browser->dump_dom(url(server.port()));
  EXPECT_FALSE(attribute(tag_by_id(dom, "prediction"), "hidden").has_value()) << dom;
  EXPECT_EQ(figure(dom, "prediction-p10", "data-us"), "110000000");
  EXPECT_EQ(figure(dom, "prediction-p50", "data-us"), "125000000");
  EXPECT_EQ(figure(dom, "prediction-p90", "data-us"), "3725000000");
  EXPECT_EQ(text_of(dom, "prediction-p50"), "2m05s");
  EXPECT_EQ(text_of(dom, "prediction-p90"), "1h02m");
  EXPECT_EQ(text_of(dom, "prediction-source"), "its plan simulated at the start (20 replicas)");
  EXPECT_FALSE(attribute(tag_by_id(dom, "eta-note"), "hidden").has_value()) << dom;
  EXPECT_EQ(text_of(dom, "eta-note"), "ranges run 0.10x the model");
}

TEST_F(LivePageTest, BeforeTheFirstStatusThePageSaysItWaits) {
  cluster_adapter::StatusServer server(0);
  const std::string dom = browser->dump_dom(url(server.port()));
  EXPECT_EQ(text_of(dom, "updated"), "waiting for the run's first status") << dom;
  EXPECT_EQ(figure(dom, "done"), "");
}

// --- a real run ------------------------------------------------------------------------------

// The top 16 ranges of the pubnet plan (16,000 ledgers each plus 320 of overlap, as
// `partition --preset stellar-pubnet` cuts them): range k's item id.
constexpr std::int64_t kSpanFirst = 54070464;
std::string range_id(int k) {
  const std::int64_t first = kSpanFirst + 16000LL * k;
  return std::to_string(first - 320) + "-" + std::to_string(first + 15999);
}

nlohmann::json fetch_status(int port) {
  httplib::Client client("127.0.0.1", port);
  auto response = client.Get("/status");
  if (!response || response->status != 200) return nlohmann::json();
  return nlohmann::json::parse(response->body);
}

// What must not move while the gated workers hold the run.
nlohmann::json held_figures(const nlohmann::json& status) {
  return {status["progress"], status["eta"], status["jobs_failed"], status["recent_attempts"]};
}

TEST_F(LivePageTest, DuringARealRunThePageShowsTheFiguresOfStatus) {
  const std::string recording = std::string(MILLRACE_SOURCE_DIR) + "/data/sets/stellar-pcv2-2024-11/stellar-supercluster.log";
  const std::string model = (dir / "model.json").string();
  ASSERT_EQ(run({"import", "--store", store, "--format", "stellar-log", "--name", "pcv2", recording}).exit_code, 0);
  ASSERT_EQ(run({"fit", "--store", store, "--runs", "pcv2", "--bins", "64", "-o", model}).exit_code, 0);

  // Ranges 0 and 1 fail (twice each), 9, 10 and 11 hold the three workers until `go`.
  for (int k : {0, 1}) std::ofstream(dir / ("fail-" + range_id(k)));
  std::set<std::string> held;
  for (int k : {9, 10, 11}) {
    std::ofstream(dir / ("hold-" + range_id(k)));
    held.insert(range_id(k));
  }
  const std::string worker = std::string(MILLRACE_SOURCE_DIR) + "/tests/cluster_adapter/http/live_page_worker.sh";
  const pid_t pid = start({"run", "--cluster", "local", "--store", store, "--name", "pubnet-top16", "--span",
                           std::to_string(kSpanFirst) + ":54326463", "--partitioner", "uniform", "--range-length",
                           "16000", "--overlap", "320", "--workers", "3", "--max-attempts", "2", "--model", model,
                           "--status-port", "0", "--command", worker + " " + dir.string() + " {id}"});
  ASSERT_GT(pid, 1);
  // However the test ends, the held workers are let go and the run is waited for.
  std::optional<cli_test::CliResult> result;
  struct Release {
    std::filesystem::path dir;
    pid_t pid;
    std::optional<cli_test::CliResult>& result;
    void operator()() {
      if (result) return;
      std::ofstream(dir / "go");
      result = cli_test::finish_cli(dir, pid);
    }
    ~Release() { (*this)(); }
  } release{dir, pid, result};

  int port = 0;
  nlohmann::json before;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (std::chrono::steady_clock::now() < deadline) {
    if (port == 0) {
      for (const std::string& line : cli_test::lines_of(cli_test::read_text(dir / "stderr"))) {
        const std::string prefix = "millrace: status on http://127.0.0.1:";
        if (line.starts_with(prefix) && line.ends_with("/status")) port = std::stoi(line.substr(prefix.size()));
      }
    }
    if (port != 0) before = fetch_status(port);
    std::set<std::string> running;
    if (before.contains("recent_attempts")) {
      for (const nlohmann::json& w : before["recent_attempts"]) {
        for (const nlohmann::json& a : w["attempts"]) {
          if (a["outcome"] == "running") running.insert(a["item"].get<std::string>());
        }
      }
    }
    if (running == held && before["jobs_failed"].size() == 2) break;
    if (!cli_test::process_runs(pid)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(before.contains("progress")) << cli_test::read_text(dir / "stderr");
  ASSERT_EQ(before["progress"]["in_flight"], 3) << before.dump(1);
  ASSERT_EQ(before["jobs_failed"].size(), 2u) << before.dump(1);

  const std::string dom = browser->dump_dom(url(port));
  const std::filesystem::path artefacts = std::filesystem::path(MILLRACE_ARTEFACT_DIR);
  std::filesystem::create_directories(artefacts);
  const std::filesystem::path png = artefacts / "live-page.png";
  std::filesystem::remove(png);
  browser->screenshot(url(port), png, 1280, 1100);
  const nlohmann::json after = fetch_status(port);
  std::ofstream(artefacts / "live-page-status.json") << after.dump(2);
  std::ofstream(artefacts / "live-page-dom.html") << dom;
  release();

  // The run stood still while the page was read, so the page's figures are those of /status.
  ASSERT_EQ(held_figures(before), held_figures(after));
  const nlohmann::json& progress = after["progress"];
  EXPECT_EQ(figure(dom, "done"), number(progress["done"]));
  EXPECT_EQ(figure(dom, "total"), "16");
  EXPECT_EQ(figure(dom, "succeeded"), number(progress["succeeded"]));
  EXPECT_EQ(figure(dom, "in-flight"), "3");
  EXPECT_EQ(figure(dom, "failed"), "2");
  EXPECT_EQ(figure(dom, "remaining"), number(progress["remaining"]));
  const nlohmann::json& eta = after["eta"];
  ASSERT_FALSE(eta["expected_us"].is_null()) << eta.dump();
  EXPECT_LT(eta["p10_us"].get<std::int64_t>(), eta["p90_us"].get<std::int64_t>()) << "the model's noise gives a band";
  EXPECT_EQ(figure(dom, "eta-expected", "data-us"), number(eta["expected_us"]));
  EXPECT_EQ(figure(dom, "eta-p10", "data-us"), number(eta["p10_us"]));
  EXPECT_EQ(figure(dom, "eta-p90", "data-us"), number(eta["p90_us"]));
  EXPECT_EQ(figure(dom, "eta-work", "data-us"), number(eta["remaining_predicted_us"]));
  EXPECT_EQ(figure(dom, "eta-slots"), "3");
  // The page's time lies between the two fetches.
  const std::int64_t shown_at = std::stoll(figure(dom, "updated", "data-at-us"));
  EXPECT_GE(shown_at, before["at_us"].get<std::int64_t>());
  EXPECT_LE(shown_at, after["at_us"].get<std::int64_t>());
  // Every worker's recent attempts, bar for bar; running ones are the held ranges.
  EXPECT_EQ(page_bars(dom), status_bars(after));
  for (const nlohmann::json& w : after["recent_attempts"]) {
    EXPECT_FALSE(tag_with(dom, "data-worker", w["worker"].get<std::string>()).empty()) << w["worker"];
  }
  // The failures with their reasons and log files (which exist, and hold the worker's message).
  EXPECT_EQ(figure(dom, "failures-count"), "2");
  for (const nlohmann::json& job : after["jobs_failed"]) {
    const std::string item = job["item"].get<std::string>();
    EXPECT_TRUE(item == range_id(0) || item == range_id(1)) << item;
    EXPECT_EQ(job["attempts"], 2);
    EXPECT_FALSE(tag_with(dom, "data-item", item).empty()) << item;
    ASSERT_EQ(job["logs"].size(), 2u);
    for (const nlohmann::json& log : job["logs"]) EXPECT_NE(dom.find(">" + log.get<std::string>() + "<"), std::string::npos) << log;
    EXPECT_EQ(cli_test::read_text(job["logs"][1].get<std::string>()), "ledger hash mismatch in " + item + "\n");
  }
  EXPECT_NE(dom.find("local processes on this machine"), std::string::npos);
  // A screenshot to look at, kept in the build tree.
  std::ifstream image(png, std::ios::binary);
  std::string signature(8, '\0');
  image.read(signature.data(), 8);
  EXPECT_EQ(signature, "\x89PNG\r\n\x1a\n");
  EXPECT_GT(std::filesystem::file_size(png), 20'000u);

  // Released, the run ends with the two failed ranges reported.
  EXPECT_EQ(result->exit_code, 1) << result->err;
  EXPECT_NE(result->err.find("2 items failed"), std::string::npos) << result->err;
}

}  // namespace
}  // namespace millrace
