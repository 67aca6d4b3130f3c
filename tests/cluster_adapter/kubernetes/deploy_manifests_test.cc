// The Kubernetes deployment files under deploy/ are what the README shows, and the documented
// Job templates render through JobTemplate into the Job of one attempt and the worker pool's
// Indexed Job, so neither can rot.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <yaml-cpp/yaml.h>

#include <vector>

#include "cluster_adapter/kubernetes/job_template.h"
#include "tests/support/loose_plans.h"

namespace millrace::cluster_adapter {
namespace {

using nlohmann::json;

std::string source_file(const std::string& relative) {
  std::ifstream in(std::string(MILLRACE_SOURCE_DIR) + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The first ```<language> block after the README's heading `heading`.
std::string readme_block(const std::string& language, const std::string& heading = "## Run on Kubernetes") {
  std::string readme = source_file("README.md");
  std::size_t section = readme.find("\n" + heading + "\n");
  if (section == std::string::npos) return "";
  std::string fence = "```" + language + "\n";
  std::size_t open = readme.find(fence, section);
  if (open == std::string::npos) return "";
  open += fence.size();
  return readme.substr(open, readme.find("```", open) - open);
}

TEST(DeployManifests, DocumentedJobTemplateRendersOneAttemptWithTheRangeInArgsAndEnv) {
  JobTemplate job_template = JobTemplate::load(std::string(MILLRACE_SOURCE_DIR) + "/deploy/job-template.json");
  data::WorkItem item;
  item.id = "1000-1063";
  item.range = data::Range{1000, 64};
  json job = job_template.render("catchup-1", "batch-work", test_support::loose_submission(7, item, 2), 3600);
  EXPECT_EQ(job["metadata"]["name"], job_name("catchup-1", "1000-1063", 2));
  EXPECT_EQ(job["metadata"]["namespace"], "batch-work");
  EXPECT_EQ(job["metadata"]["labels"][kRunLabel], "catchup-1");
  EXPECT_EQ(job["metadata"]["labels"][kAttemptLabel], "2");
  EXPECT_EQ(job["spec"]["backoffLimit"], 0);
  EXPECT_EQ(job["spec"]["activeDeadlineSeconds"], 3600);
  const json& pod = job["spec"]["template"];
  EXPECT_EQ(pod["spec"]["restartPolicy"], "Never");
  EXPECT_EQ(pod["metadata"]["labels"]["app"], "catchup");
  const json& container = pod["spec"]["containers"][0];
  EXPECT_EQ(container["args"], json::parse(R"(["--first", "1000", "--count", "64", "--end", "1064",
                                               "--tag", "1000-1063.2"])"));
  std::map<std::string, std::string> env;
  for (const json& var : container["env"]) env[var["name"]] = var["value"];
  EXPECT_EQ(env["LOG_LEVEL"], "info");
  EXPECT_EQ(env["MILLRACE_FIRST"], "1000");
  EXPECT_EQ(env["MILLRACE_END_COUNT"], "1063/64");
}

TEST(DeployManifests, ReadmeShowsTheDeployedJobTemplateAndRbacAsTheyAre) {
  std::string documented = readme_block("json");
  ASSERT_FALSE(documented.empty()) << "no json block in README's Run on Kubernetes section";
  EXPECT_EQ(json::parse(documented), json::parse(source_file("deploy/job-template.json")));
  EXPECT_EQ(readme_block("yaml"), source_file("deploy/rbac.yaml"));
  std::string pool = readme_block("json", "### Worker-pool mode");
  ASSERT_FALSE(pool.empty()) << "no json block in README's Worker-pool mode section";
  EXPECT_EQ(json::parse(pool), json::parse(source_file("deploy/pool-job-template.json")));
}

// Nodes are cluster-scoped: a namespaced Role cannot grant them. The node arrivals watch
// (cluster_adapter/kubernetes/node_arrivals.h) needs a ClusterRole bound to the run's account.
TEST(DeployManifests, RbacGrantsReadingNodesClusterWideToTheRunsServiceAccount) {
  std::map<std::string, YAML::Node> by_kind;
  for (const YAML::Node& document : YAML::LoadAll(source_file("deploy/rbac.yaml"))) {
    by_kind[document["kind"].as<std::string>()] = document;
  }
  ASSERT_EQ(by_kind.count("ClusterRole"), 1u);
  ASSERT_EQ(by_kind.count("ClusterRoleBinding"), 1u);
  const YAML::Node role = by_kind["ClusterRole"];
  ASSERT_EQ(role["rules"].size(), 1u);
  const YAML::Node rule = role["rules"][0];
  EXPECT_EQ(rule["apiGroups"].as<std::vector<std::string>>(), std::vector<std::string>{""});
  EXPECT_EQ(rule["resources"].as<std::vector<std::string>>(), std::vector<std::string>{"nodes"});
  EXPECT_EQ(rule["verbs"].as<std::vector<std::string>>(), (std::vector<std::string>{"get", "list", "watch"}));
  const YAML::Node binding = by_kind["ClusterRoleBinding"];
  EXPECT_EQ(binding["roleRef"]["kind"].as<std::string>(), "ClusterRole");
  EXPECT_EQ(binding["roleRef"]["name"].as<std::string>(), role["metadata"]["name"].as<std::string>());
  ASSERT_EQ(binding["subjects"].size(), 1u);
  EXPECT_EQ(binding["subjects"][0]["kind"].as<std::string>(), "ServiceAccount");
  EXPECT_EQ(binding["subjects"][0]["name"].as<std::string>(), by_kind["ServiceAccount"]["metadata"]["name"].as<std::string>());
  EXPECT_FALSE(binding["subjects"][0]["namespace"].as<std::string>("").empty())
      << "a ClusterRoleBinding's ServiceAccount subject must name its namespace";
  EXPECT_NE(role["metadata"]["name"].as<std::string>(), "");
}

TEST(DeployManifests, DocumentedPoolTemplateRendersTheIndexedJobOfThePool) {
  JobTemplate pool = JobTemplate::load(std::string(MILLRACE_SOURCE_DIR) + "/deploy/pool-job-template.json");
  json job = pool.render_pool("catchup-1", "batch-work", 8, "http://millrace.batch-work.svc:8642", "0123abcd");
  EXPECT_EQ(job["metadata"]["name"], "catchup-1-pool");
  EXPECT_EQ(job["spec"]["completionMode"], "Indexed");
  EXPECT_EQ(job["spec"]["completions"], 8);
  const json& container = job["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(container["command"], json::parse(R"(["/bin/sh", "/opt/millrace/pool-worker.sh"])"));
  std::map<std::string, json> env;
  for (const json& var : container["env"]) env[var["name"]] = var;
  EXPECT_EQ(env["MILLRACE_LEASE_URL"]["value"], "http://millrace.batch-work.svc:8642");
  EXPECT_EQ(env["MILLRACE_LEASE_TOKEN"]["value"], "0123abcd");  // what pool-worker.sh sends
  EXPECT_EQ(pool_lease_token(job), "0123abcd");
  EXPECT_EQ(env["POD_NAME"]["valueFrom"]["fieldRef"]["fieldPath"], "metadata.name");  // the worker's name
}

}  // namespace
}  // namespace millrace::cluster_adapter
