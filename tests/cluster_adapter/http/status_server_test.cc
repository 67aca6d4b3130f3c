#include "cluster_adapter/http/status_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cluster_adapter/realtime/run_metrics.h"
#include "data/error.h"

namespace millrace::cluster_adapter {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool has_line(const std::string& text, const std::string& line) {
  auto lines = lines_of(text);
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

RunMetrics sample_metrics() {
  RunMetrics metrics;
  metrics.items_total = 10;
  metrics.items_remaining = 6;
  metrics.items_succeeded = 3;
  metrics.items_failed = 1;
  metrics.in_flight = 2;
  metrics.attempts_failed = 2;
  metrics.attempt_durations = DurationHistogram({data::kMicrosPerSecond, 10 * data::kMicrosPerSecond});
  for (data::Micros d : {500'000, 1'000'000, 2'500'000, 60'000'000}) metrics.attempt_durations.observe(d);
  metrics.worker_busy["local-0"] = 3'500'000;
  metrics.worker_busy["pod \"a\""] = 1;
  return metrics;
}

TEST(RunMetricsTest, HistogramBucketsAreCumulativeWithInfEqualToCount) {
  DurationHistogram histogram({10, 20});
  for (data::Micros d : {5, 10, 11, 20, 21, 1000}) histogram.observe(d);
  EXPECT_EQ(histogram.cumulative_counts(), (std::vector<std::int64_t>{2, 4, 6}));
  EXPECT_EQ(histogram.count(), 6);
  EXPECT_EQ(histogram.sum(), 5 + 10 + 11 + 20 + 21 + 1000);
}

TEST(RunMetricsTest, SecondsArePrintedExactlyToTheMicrosecond) {
  EXPECT_EQ(prometheus_seconds(0), "0");
  EXPECT_EQ(prometheus_seconds(3'000'000), "3");
  EXPECT_EQ(prometheus_seconds(1'500'000), "1.5");
  EXPECT_EQ(prometheus_seconds(1), "0.000001");
  EXPECT_EQ(prometheus_seconds(-2'250'000), "-2.25");
}

TEST(RunMetricsTest, ExpositionHasHelpTypeAndSamplesForEveryMetric) {
  std::string text = prometheus_text(sample_metrics());
  EXPECT_TRUE(has_line(text, "# HELP millrace_items_remaining Work items not yet succeeded nor given up."));
  EXPECT_TRUE(has_line(text, "# TYPE millrace_items_remaining gauge"));
  EXPECT_TRUE(has_line(text, "millrace_items_remaining 6"));
  EXPECT_TRUE(has_line(text, "millrace_items_succeeded 3"));
  EXPECT_TRUE(has_line(text, "millrace_items_failed 1"));
  EXPECT_TRUE(has_line(text, "millrace_attempts_in_flight 2"));
  EXPECT_TRUE(has_line(text, "# TYPE millrace_attempt_duration_seconds histogram"));
  EXPECT_TRUE(has_line(text, "millrace_attempt_duration_seconds_bucket{le=\"1\"} 2"));
  EXPECT_TRUE(has_line(text, "millrace_attempt_duration_seconds_bucket{le=\"10\"} 3"));
  EXPECT_TRUE(has_line(text, "millrace_attempt_duration_seconds_bucket{le=\"+Inf\"} 4"));
  EXPECT_TRUE(has_line(text, "millrace_attempt_duration_seconds_sum 64"));
  EXPECT_TRUE(has_line(text, "millrace_attempt_duration_seconds_count 4"));
  EXPECT_TRUE(has_line(text, "# TYPE millrace_worker_busy_seconds_total counter"));
  EXPECT_TRUE(has_line(text, "millrace_worker_busy_seconds_total{worker=\"local-0\"} 3.5"));
  EXPECT_TRUE(has_line(text, "millrace_worker_busy_seconds_total{worker=\"pod \\\"a\\\"\"} 0.000001"));
  for (const std::string& line : lines_of(text)) {
    if (line.starts_with("# ")) {
      EXPECT_TRUE(line.starts_with("# HELP millrace_") || line.starts_with("# TYPE millrace_")) << line;
    } else {
      EXPECT_TRUE(line.starts_with("millrace_")) << line;
      EXPECT_NE(line.rfind(' '), std::string::npos) << line;
    }
  }
}

TEST(RunMetricsTest, SlotsAlwaysAndTheEtaBandWhenPredicted) {
  RunMetrics metrics = sample_metrics();
  metrics.slots = 4;
  EXPECT_TRUE(has_line(prometheus_text(metrics), "millrace_worker_slots 4"));
  EXPECT_EQ(prometheus_text(metrics).find("millrace_eta_seconds"), std::string::npos);
  metrics.eta = EtaBand{90 * data::kMicrosPerSecond, 80 * data::kMicrosPerSecond, 105'500'000};
  const std::string text = prometheus_text(metrics);
  EXPECT_TRUE(has_line(text, "# TYPE millrace_eta_seconds gauge"));
  EXPECT_TRUE(has_line(text, "millrace_eta_seconds{estimate=\"expected\"} 90"));
  EXPECT_TRUE(has_line(text, "millrace_eta_seconds{estimate=\"p10\"} 80"));
  EXPECT_TRUE(has_line(text, "millrace_eta_seconds{estimate=\"p90\"} 105.5"));
}

class StatusServerTest : public ::testing::Test {
 protected:
  StatusServer server{0};
  httplib::Client client{"127.0.0.1", server.port()};
};

TEST_F(StatusServerTest, PortZeroPicksAFreePortAndHealthzAnswersOk) {
  EXPECT_GT(server.port(), 0);
  auto response = client.Get("/healthz");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "ok\n");
}

TEST_F(StatusServerTest, StatusServesThePublishedJsonWithItsContentType) {
  nlohmann::json status = {{"num_remain", 6},        {"num_succeeded", 3},
                           {"jobs_failed", {{{"item", "r1"}, {"worker", "local-1"}}}},
                           {"jobs_in_progress", {"149/50"}}, {"workers", nlohmann::json::array()}};
  server.publish(StatusDocuments{status.dump(), ""});
  auto response = client.Get("/status");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->get_header_value("Content-Type"), "application/json");
  auto served = nlohmann::json::parse(response->body);
  EXPECT_EQ(served["num_remain"], 6);
  EXPECT_EQ(served["num_succeeded"], 3);
  EXPECT_EQ(served["jobs_failed"][0]["worker"], "local-1");
  EXPECT_EQ(served["jobs_in_progress"][0], "149/50");
  EXPECT_TRUE(served["workers"].is_array());
}

TEST_F(StatusServerTest, MetricsServeTheExpositionFormatContentType) {
  server.publish(StatusDocuments{"{}", prometheus_text(sample_metrics())});
  auto response = client.Get("/metrics");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_TRUE(has_line(response->body, "millrace_attempt_duration_seconds_bucket{le=\"+Inf\"} 4"));
}

TEST_F(StatusServerTest, BeforeAnyPublishStatusIsAnEmptyObject) {
  auto response = client.Get("/status");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->body, "{}");
}

TEST_F(StatusServerTest, BindingAPortInUseNamesTheAddress) {
  try {
    StatusServer second(server.port());
    FAIL() << "expected an error";
  } catch (const data::Error& error) {
    EXPECT_EQ(error.input(), "http://127.0.0.1:" + std::to_string(server.port()));
  }
}

std::string source_file(const std::string& path) {
  std::ifstream in(std::string(MILLRACE_SOURCE_DIR) + "/" + path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The page is served from the binary, byte for byte the files of cluster_adapter/http/live_page/,
// with a policy that lets no inline script run.
TEST_F(StatusServerTest, RootServesTheCompiledInLivePageAndItsFiles) {
  const std::pair<std::string, std::string> files[] = {{"/", "live_page/index.html"},
                                                        {"/live_page.css", "live_page/live_page.css"},
                                                        {"/live_page.js", "live_page/live_page.js"}};
  for (const auto& [path, file] : files) {
    auto response = client.Get(path);
    ASSERT_TRUE(response) << path;
    EXPECT_EQ(response->status, 200) << path;
    const std::string source = source_file("cluster_adapter/http/" + file);
    ASSERT_FALSE(source.empty()) << file;
    EXPECT_EQ(response->body, source) << path;
    EXPECT_EQ(response->get_header_value("Content-Security-Policy").find("script-src 'self';"),
              std::string("default-src 'none'; ").size())
        << path;
    EXPECT_EQ(response->get_header_value("X-Content-Type-Options"), "nosniff");
  }
  EXPECT_EQ(client.Get("/")->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(client.Get("/live_page.js")->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(client.Get("/index.html")->status, 404);
}

}  // namespace
}  // namespace millrace::cluster_adapter
