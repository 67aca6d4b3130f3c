// The Kubernetes deployment files under deploy/ are what the README shows, the documented Job
// templates render through JobTemplate into the Job of one attempt and the worker pools' Indexed
// Jobs, and the image recipe (deploy/Dockerfile) builds from the packages scripts/install-deps.sh
// installs and puts the workers where the pool templates run them, so none of them can rot.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

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

std::map<std::string, json> env_by_name(const json& container) {
  std::map<std::string, json> env;
  for (const json& var : container["env"]) env[var["name"]] = var;
  return env;
}

TEST(DeployManifests, DocumentedPoolTemplateRendersTheIndexedJobOfThePool) {
  JobTemplate pool = JobTemplate::load(std::string(MILLRACE_SOURCE_DIR) + "/deploy/pool-job-template.json");
  json job = pool.render_pool("catchup-1", "batch-work", 8, "http://millrace.batch-work.svc:8642", "0123abcd");
  EXPECT_EQ(job["metadata"]["name"], "catchup-1-pool");
  EXPECT_EQ(job["spec"]["completionMode"], "Indexed");
  EXPECT_EQ(job["spec"]["completions"], 8);
  const json& container = job["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(container["command"], json::parse(R"(["/bin/sh", "/opt/millrace/pool-worker.sh"])"));
  EXPECT_EQ(job["spec"]["template"]["spec"]["automountServiceAccountToken"], false);  // workers need no rights
  std::map<std::string, json> env = env_by_name(container);
  EXPECT_EQ(env["MILLRACE_LEASE_URL"]["value"], "http://millrace.batch-work.svc:8642");
  EXPECT_EQ(env["MILLRACE_LEASE_TOKEN"]["value"], "0123abcd");  // what pool-worker.sh sends
  EXPECT_EQ(pool_lease_token(job), "0123abcd");
  EXPECT_EQ(env["POD_NAME"]["valueFrom"]["fieldRef"]["fieldPath"], "metadata.name");  // the worker's name
}

// The pool a fanned-out compare or plan runs on: `millrace sweep-worker` in each pod, which finds
// the lease API and its token in the environment millrace sets and names itself by POD_NAME.
TEST(DeployManifests, DocumentedSweepPoolTemplateRendersAPoolOfSweepWorkersWithRequests) {
  JobTemplate pool = JobTemplate::load(std::string(MILLRACE_SOURCE_DIR) + "/deploy/sweep-pool-job-template.json");
  json job = pool.render_pool("plan-3", "batch-work", 4, "http://millrace.batch-work.svc:8642", "feedc0de");
  EXPECT_EQ(job["metadata"]["name"], "plan-3-pool");
  EXPECT_EQ(job["spec"]["completions"], 4);
  EXPECT_EQ(job["spec"]["parallelism"], 4);
  const json& pod = job["spec"]["template"]["spec"];
  EXPECT_EQ(pod["restartPolicy"], "OnFailure");
  EXPECT_EQ(pod["automountServiceAccountToken"], false);
  ASSERT_EQ(pod["containers"].size(), 1u);
  const json& container = pod["containers"][0];
  EXPECT_EQ(container["command"], json::parse(R"(["millrace", "sweep-worker"])"));
  EXPECT_FALSE(container.contains("args"));
  std::map<std::string, json> env = env_by_name(container);
  EXPECT_EQ(env["MILLRACE_LEASE_URL"]["value"], "http://millrace.batch-work.svc:8642");
  EXPECT_EQ(env["MILLRACE_LEASE_TOKEN"]["value"], "feedc0de");
  EXPECT_EQ(env["POD_NAME"]["valueFrom"]["fieldRef"]["fieldPath"], "metadata.name");
  const json& resources = container["resources"];
  EXPECT_TRUE(resources["requests"].contains("cpu"));
  EXPECT_TRUE(resources["requests"].contains("memory"));
  EXPECT_EQ(resources["limits"]["memory"], resources["requests"]["memory"]);  // no eviction for memory
  std::string documented = readme_block("json", "### What deploy/ holds for a fanned-out sweep");
  ASSERT_FALSE(documented.empty()) << "no json block in README's sweep section";
  EXPECT_EQ(json::parse(documented), json::parse(source_file("deploy/sweep-pool-job-template.json")));
}

// One stage of a Dockerfile: its FROM line and its instructions, continuation lines joined.
struct ImageStage {
  std::string from;
  std::vector<std::string> instructions;
};

std::vector<ImageStage> dockerfile_stages(const std::string& text) {
  std::vector<ImageStage> stages;
  std::istringstream lines(text);
  std::string line, instruction;
  while (std::getline(lines, line)) {
    if (instruction.empty() && (line.empty() || line[0] == '#')) continue;
    bool continued = !line.empty() && line.back() == '\\';
    instruction += continued ? line.substr(0, line.size() - 1) : line;
    if (continued) continue;
    if (instruction.rfind("FROM ", 0) == 0) {
      stages.push_back({instruction.substr(5), {}});
    } else if (!stages.empty()) {
      stages.back().instructions.push_back(instruction);
    }
    instruction.clear();
  }
  return stages;
}

// The packages of every `apt-get install` of a stage (the words after its options, up to `&&`).
std::set<std::string> apt_packages(const ImageStage& stage) {
  std::set<std::string> packages;
  for (const std::string& instruction : stage.instructions) {
    std::size_t install = instruction.find("apt-get install");
    if (install == std::string::npos) continue;
    std::istringstream words(instruction.substr(install + 15));
    for (std::string word; words >> word && word != "&&";) {
      if (word[0] != '-') packages.insert(word);
    }
  }
  return packages;
}

bool has_instruction(const ImageStage& stage, const std::string& text) {
  return std::any_of(stage.instructions.begin(), stage.instructions.end(),
                     [&](const std::string& instruction) { return instruction == text; });
}

TEST(DeployManifests, ImageRecipeBuildsOnDebian12FromTheInstallScriptsPackagesAndShipsTheWorkers) {
  std::vector<ImageStage> stages = dockerfile_stages(source_file("deploy/Dockerfile"));
  ASSERT_EQ(stages.size(), 2u) << "a build stage and a runtime stage";
  EXPECT_EQ(stages[0].from, "debian:12-slim AS build");
  EXPECT_EQ(stages[1].from, "debian:12-slim");

  // Every package the build stage installs is one scripts/install-deps.sh installs (one list of
  // build packages), and the build stage has the compiler, CMake and the libraries' headers.
  std::string install_deps = source_file("scripts/install-deps.sh");
  std::string listed = install_deps.substr(0, install_deps.find("\n)\n"));
  std::set<std::string> build = apt_packages(stages[0]);
  for (const std::string& package : build) {
    EXPECT_TRUE(std::regex_search(listed, std::regex("[ (\n]" + std::regex_replace(package, std::regex("[+.]"), "\\$&") +
                                                      "[ \n]")))
        << package << " is not among scripts/install-deps.sh's packages";
  }
  for (const char* needed : {"g++", "cmake", "libsqlite3-dev", "libcpp-httplib-dev", "libyaml-cpp-dev", "libssl-dev"}) {
    EXPECT_EQ(build.count(needed), 1u) << needed;
  }
  EXPECT_EQ(build.count("libgtest-dev"), 0u) << "tests are not built in the image";

  // The runtime stage: the binary on PATH (the sweep template's command), pool-worker.sh where
  // the run's pool template runs it, curl and jq for it, and no compiler.
  const ImageStage& runtime = stages[1];
  std::set<std::string> runtime_packages = apt_packages(runtime);
  for (const char* needed : {"curl", "jq", "ca-certificates", "libsqlite3-0", "libcurl4", "libyaml-cpp0.7"}) {
    EXPECT_EQ(runtime_packages.count(needed), 1u) << needed;
  }
  EXPECT_EQ(runtime_packages.count("g++"), 0u);
  EXPECT_TRUE(has_instruction(runtime, "COPY --from=build /build/cli/millrace /usr/local/bin/millrace"));
  EXPECT_TRUE(has_instruction(runtime, "COPY deploy/pool-worker.sh /opt/millrace/pool-worker.sh"));
  json run_pool = json::parse(source_file("deploy/pool-job-template.json"));
  EXPECT_EQ(run_pool["spec"]["template"]["spec"]["containers"][0]["command"][1], "/opt/millrace/pool-worker.sh");
  EXPECT_TRUE(has_instruction(runtime, "USER 10001")) << "the workers run as a user, not root";
}

}  // namespace
}  // namespace millrace::cluster_adapter
