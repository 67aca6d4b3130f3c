// deploy/grafana-dashboard.json asks only for what millrace's /metrics exports: every metric
// its PromQL selects (panels' queries and the template variables' label_values), every label
// it matches, groups or names in a legend, and every literal label value it matches exactly,
// are found in the /metrics scraped from a real local run (`millrace run --status-port`, with a
// cost model for the ETA series) and from a status server publishing the Kubernetes and worker
// pool metrics the same code renders for those runs. `job` and `instance` are the labels
// Prometheus itself attaches to every scraped series.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster_adapter/http/status_server.h"
#include "cluster_adapter/kubernetes/kubernetes_status.h"
#include "cluster_adapter/kubernetes/worker_pool/worker_pool_status.h"
#include "data/cost_model.h"
#include "tests/cli/cli_process.h"
#include "tests/deploy/promql_selectors.h"

namespace millrace {
namespace {

using test_support::PromqlScanner;
using test_support::PromqlUse;

// Metric name -> label name -> the values seen, from the exposition text.
using Exported = std::map<std::string, std::map<std::string, std::set<std::string>>>;

void add_exposition(Exported& exported, const std::string& text) {
  static const std::regex sample(R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? \S+$)");
  static const std::regex label(R"re(([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)")re");
  for (const std::string& line : cli_test::lines_of(text)) {
    if (line.empty() || line[0] == '#') continue;
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, sample)) << "not a sample line: " << line;
    auto& labels = exported[m[1]];
    const std::string list = m[3];
    for (std::sregex_iterator l(list.begin(), list.end(), label), end; l != end; ++l) labels[(*l)[1]].insert((*l)[2]);
  }
}

std::string scrape(int port) {
  httplib::Client client("127.0.0.1", port);
  auto response = client.Get("/metrics");
  return response && response->status == 200 ? response->body : "";
}

// The PromQL of a dashboard: panel targets (rows' panels too) and template variable queries;
// label_values(SELECTOR, LABEL) is SELECTOR plus a label it needs. With each query, the labels
// its legend names ({{label}}).
struct Query {
  std::string where;
  std::string expr;
  std::set<std::string> needed_labels;
};

void panel_queries(const nlohmann::json& panels, std::vector<Query>& queries) {
  static const std::regex legend_label(R"(\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\})");
  for (const nlohmann::json& panel : panels) {
    if (panel.contains("panels")) panel_queries(panel["panels"], queries);
    for (const nlohmann::json& target : panel.value("targets", nlohmann::json::array())) {
      Query q{"panel '" + panel.value("title", "") + "'", target.at("expr").get<std::string>(), {}};
      const std::string legend = target.value("legendFormat", "");
      for (std::sregex_iterator l(legend.begin(), legend.end(), legend_label), end; l != end; ++l) {
        q.needed_labels.insert((*l)[1]);
      }
      queries.push_back(std::move(q));
    }
  }
}

std::vector<Query> dashboard_queries(const nlohmann::json& dashboard) {
  std::vector<Query> queries;
  panel_queries(dashboard.at("panels"), queries);
  static const std::regex label_values(R"(^\s*label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)\s*$)");
  for (const nlohmann::json& variable : dashboard.at("templating").at("list")) {
    if (variable.at("type") != "query") continue;
    const nlohmann::json& query = variable.at("query");
    const std::string text = query.is_string() ? query.get<std::string>() : query.at("query").get<std::string>();
    std::smatch m;
    if (std::regex_match(text, m, label_values)) {
      queries.push_back(Query{"variable $" + variable.at("name").get<std::string>(), m[1], {m[2]}});
    } else {
      queries.push_back(Query{"variable $" + variable.at("name").get<std::string>(), text, {}});
    }
  }
  return queries;
}

// What of the queries the exports lack, one line each; `selectors` counts the selectors checked.
std::vector<std::string> missing_from(const std::vector<Query>& queries, const Exported& exported, int* selectors) {
  static const std::set<std::string> kTargetLabels = {"job", "instance"};
  std::vector<std::string> problems;
  for (const Query& q : queries) {
    PromqlUse use;
    try {
      use = PromqlScanner(q.expr).scan();
    } catch (const std::exception& e) {
      problems.push_back(q.where + ": " + e.what());
      continue;
    }
    std::set<std::string> labels = kTargetLabels;  // of the metrics this query selects
    for (const test_support::MetricSelector& s : use.selectors) {
      ++*selectors;
      auto metric = exported.find(s.metric);
      if (metric == exported.end()) {
        problems.push_back(q.where + ": metric " + s.metric + " is not exported");
        continue;
      }
      for (const auto& [name, values] : metric->second) labels.insert(name);
      for (const test_support::LabelMatcher& m : s.matchers) {
        if (kTargetLabels.contains(m.label)) continue;
        auto label = metric->second.find(m.label);
        if (label == metric->second.end()) {
          problems.push_back(q.where + ": " + s.metric + " has no label " + m.label);
        } else if (m.op == "=" && m.value.find('$') == std::string::npos && !label->second.contains(m.value)) {
          problems.push_back(q.where + ": " + s.metric + " never has " + m.label + "=\"" + m.value + "\"");
        }
      }
    }
    std::set<std::string> needed = q.needed_labels;
    needed.insert(use.grouping_labels.begin(), use.grouping_labels.end());
    for (const std::string& label : needed) {
      if (!labels.contains(label)) problems.push_back(q.where + ": label " + label + " is on none of its metrics");
    }
  }
  return problems;
}

nlohmann::json read_dashboard() {
  std::ifstream in(std::string(MILLRACE_SOURCE_DIR) + "/deploy/grafana-dashboard.json");
  return nlohmann::json::parse(in);
}

// The Kubernetes (job-per-item) and worker pool series, with a caller failing, an attempt
// unschedulable and pods in two phases, so their labelled series have samples.
std::string cluster_metrics() {
  cluster_adapter::ApiHealthStatus api;
  api.reachable = false;
  api.failing = {cluster_adapter::FailingSource{"watch jobs", "connection refused", 1, 3}};
  cluster_adapter::KubernetesClusterStatus jobs;
  jobs.api = api;
  jobs.unschedulable = {cluster_adapter::UnschedulableAttempt{"run-1-a-1", "a", 1, "run-1-a-1-xyz", 0, "no nodes"}};
  cluster_adapter::WorkerPoolStatus pool;
  pool.api = api;
  pool.workers = 3;
  pool.pods = {{"Running", 2}, {"Pending", 1}};
  cluster_adapter::PrometheusWriter out;
  write_metrics(out, jobs, 10);
  write_metrics(out, pool, 10);
  return out.text();
}

class GrafanaDashboardTest : public cli_test::CliRunTest {
 protected:
  // /metrics of a real local run: range 0 failed, range 1 succeeded, ranges 2 and 3 held in
  // flight; a cost model with noise makes it export the ETA.
  std::string scrape_real_run() {
    data::CostModel model({data::CostBin{data::Range{0, 40}, 1e6, 1e5}});
    model.set_noise(data::DurationNoise({data::NoiseSegment{0, {0.5, 1.0, 2.0}}}));
    const std::string model_path = (dir / "model.json").string();
    model.save(model_path);
    std::ofstream(dir / "fail-0-9");
    std::ofstream(dir / "hold-20-29");
    std::ofstream(dir / "hold-30-39");
    const std::string worker = std::string(MILLRACE_SOURCE_DIR) + "/tests/cluster_adapter/http/live_page_worker.sh";
    std::vector<std::string> args = run_args(worker + " " + dir.string() + " {id}", 4, 2);
    args.insert(args.end(), {"--max-attempts", "1", "--model", model_path, "--status-port", "0"});
    const pid_t pid = start(args);
    EXPECT_GT(pid, 1);
    std::string text;
    int port = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline && cli_test::process_runs(pid)) {
      for (const std::string& line : cli_test::lines_of(cli_test::read_text(dir / "stderr"))) {
        const std::string prefix = "millrace: status on http://127.0.0.1:";
        if (port == 0 && line.starts_with(prefix) && line.ends_with("/status")) port = std::stoi(line.substr(prefix.size()));
      }
      if (port != 0) text = scrape(port);
      if (text.find("\nmillrace_attempts_in_flight 2\n") != std::string::npos &&
          text.find("\nmillrace_attempt_duration_seconds_count 2\n") != std::string::npos) {
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    std::ofstream(dir / "go");
    EXPECT_EQ(finish(pid).exit_code, 1);  // range 0 failed
    EXPECT_NE(text.find("\nmillrace_attempt_duration_seconds_count 2\n"), std::string::npos) << text;
    return text;
  }
};

TEST_F(GrafanaDashboardTest, EveryMetricAndLabelTheDashboardQueriesIsExported) {
  const nlohmann::json dashboard = read_dashboard();
  EXPECT_EQ(dashboard.at("uid"), "millrace-run");
  Exported exported;
  add_exposition(exported, scrape_real_run());
  cluster_adapter::StatusServer cluster_server(0);
  cluster_server.publish({"{}", cluster_metrics()});
  add_exposition(exported, scrape(cluster_server.port()));

  const std::vector<Query> queries = dashboard_queries(dashboard);
  int selectors = 0;
  const std::vector<std::string> problems = missing_from(queries, exported, &selectors);
  EXPECT_TRUE(problems.empty()) << [&] {
    std::string all;
    for (const std::string& p : problems) all += p + "\n";
    return all;
  }();
  EXPECT_GE(selectors, 40);
  // The figures the issue asks for each have a panel.
  std::set<std::string> selected;
  for (const Query& q : queries) {
    for (const auto& s : PromqlScanner(q.expr).scan().selectors) selected.insert(s.metric);
  }
  for (const char* metric : {"millrace_items_remaining", "millrace_attempt_duration_seconds_bucket",
                             "millrace_worker_busy_seconds_total", "millrace_kubernetes_api_reachable",
                             "millrace_worker_slots", "millrace_pool_leases_held", "millrace_eta_seconds"}) {
    EXPECT_TRUE(selected.contains(metric)) << metric;
  }
}

// The check can fail: unknown metrics, labels, label values and legend labels are each named.
TEST(GrafanaDashboardCheckTest, NamesWhatTheExportsLack) {
  Exported exported;
  add_exposition(exported,
                 "millrace_items_total 4\nmillrace_eta_seconds{estimate=\"p10\"} 3\n"
                 "millrace_attempt_duration_seconds_bucket{le=\"1\"} 2\n");
  const std::vector<Query> queries = {
      {"a", "rate(millrace_nope{job=\"$job\"}[5m])", {}},
      {"b", "millrace_items_total{worker=\"w0\"}", {}},
      {"c", "millrace_eta_seconds{estimate=\"p50\", instance=~\"$instance\"}", {}},
      {"d", "sum by (phase) (millrace_items_total)", {"estimate"}},
      {"e", "histogram_quantile(0.9, sum by (le) (rate(millrace_attempt_duration_seconds_bucket[$__rate_interval])))", {}},
      {"f", "millrace_items_total{job=\"x\"", {}},
  };
  int selectors = 0;
  const std::vector<std::string> problems = missing_from(queries, exported, &selectors);
  ASSERT_EQ(problems.size(), 6u);
  EXPECT_EQ(problems[0], "a: metric millrace_nope is not exported");
  EXPECT_EQ(problems[1], "b: millrace_items_total has no label worker");
  EXPECT_EQ(problems[2], "c: millrace_eta_seconds never has estimate=\"p50\"");
  EXPECT_EQ(problems[3], "d: label estimate is on none of its metrics");
  EXPECT_EQ(problems[4], "d: label phase is on none of its metrics");
  EXPECT_NE(problems[5].find("f: PromQL `millrace_items_total{job=\"x\"`"), std::string::npos) << problems[5];
}

}  // namespace
}  // namespace millrace
