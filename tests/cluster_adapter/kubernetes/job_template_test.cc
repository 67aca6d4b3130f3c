// Rendering one attempt's Job from the user's template: names, labels, retries left to the
// scheduler, env vars and args placeholders, and the template's errors.
#include "cluster_adapter/kubernetes/job_template.h"

#include <gtest/gtest.h>

#include "data/error.h"
#include "tests/support/loose_plans.h"
#include "tests/cluster_adapter/kubernetes/k8s_test_support.h"

namespace millrace::cluster_adapter {
namespace {

using nlohmann::json;

data::WorkItem range_item() {
  data::WorkItem item;
  item.id = "Ledgers_0064";
  item.range = data::Range{64, 32};
  return item;
}

std::map<std::string, std::string> env_of(const json& container) {
  std::map<std::string, std::string> env;
  for (const auto& e : container["env"]) env[e["name"]] = e["value"];
  return env;
}

TEST(JobName, SameAttemptGivesTheSameValidName) {
  EXPECT_EQ(job_name("run-7", "r12", 2), "run-7-r12-a2");
  EXPECT_EQ(job_name("run-7", "r12", 2), job_name("run-7", "r12", 2));
  EXPECT_NE(job_name("run-7", "r12", 2), job_name("run-7", "r12", 3));
  std::string odd = job_name("Run 7", "Ledgers_0064", 1);
  EXPECT_EQ(odd, job_name("Run 7", "Ledgers_0064", 1));
  EXPECT_EQ(odd, dns_label(odd));  // already a valid label
  EXPECT_NE(job_name("run", "A", 1), job_name("run", "a", 1));  // lossy changes keep inputs apart
  EXPECT_LE(job_name(std::string(80, 'x'), "item", 1).size(), 63u);
}

TEST(JobTemplateRender, SetsNameLabelsAndLeavesRetriesToTheScheduler) {
  data::WorkItem item = range_item();
  json job = test_job_template().render("run-7", "work", test_support::loose_submission(41, item, 3), 900);
  EXPECT_EQ(job["metadata"]["name"], job_name("run-7", item.id, 3));
  EXPECT_EQ(job["metadata"]["namespace"], "work");
  EXPECT_EQ(job["metadata"]["labels"]["app"], "catchup");  // the template's own labels stay
  EXPECT_EQ(job["metadata"]["labels"][kRunLabel], "run-7");
  EXPECT_EQ(job["metadata"]["labels"][kAttemptLabel], "3");
  EXPECT_EQ(job["metadata"]["annotations"][kItemAnnotation], "Ledgers_0064");
  EXPECT_EQ(job["metadata"]["annotations"][kHandleAnnotation], "41");
  EXPECT_EQ(job["spec"]["backoffLimit"], 0);
  EXPECT_EQ(job["spec"]["activeDeadlineSeconds"], 900);
  EXPECT_EQ(job["spec"]["template"]["spec"]["restartPolicy"], "Never");
  EXPECT_EQ(job["spec"]["template"]["metadata"]["labels"][kJobLabel], job["metadata"]["name"]);
}

TEST(JobTemplateRender, InjectsEnvAndArgsPlaceholders) {
  data::WorkItem item = range_item();
  json job = test_job_template().render("run-7", "work", test_support::loose_submission(1, item, 2), std::nullopt);
  const json& container = job["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(container["args"], json({"--range", "64", "32", "--end=96", "Ledgers_0064/2"}));
  auto env = env_of(container);
  EXPECT_EQ(env["MILLRACE_FIRST"], "64");
  EXPECT_EQ(env["MILLRACE_COUNT"], "32");
  EXPECT_EQ(env["MILLRACE_LAST"], "95");
  EXPECT_EQ(env["MILLRACE_END"], "96");
  EXPECT_EQ(env["MILLRACE_END_COUNT"], "95/32");
  EXPECT_EQ(env["MILLRACE_ITEM"], "Ledgers_0064");
  EXPECT_EQ(env["MILLRACE_ATTEMPT"], "2");
  EXPECT_EQ(env["MILLRACE_RUN"], "run-7");
  EXPECT_FALSE(job["spec"].contains("activeDeadlineSeconds"));
}

TEST(JobTemplateRender, ReplacesAnEnvVarTheTemplateAlreadySets) {
  auto t = JobTemplate::parse(R"({"apiVersion": "batch/v1", "kind": "Job", "spec": {"template": {"spec":
    {"restartPolicy": "OnFailure", "containers": [{"name": "w", "image": "i",
      "env": [{"name": "MILLRACE_FIRST", "value": "stale"}, {"name": "KEEP", "value": "1"}, 7, {"name": 5}]}]}}}})", "t");
  data::WorkItem item = range_item();
  json job = t.render("r", "default", test_support::loose_submission(1, item, 1), std::nullopt);
  const json& container = job["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(container["env"][2], 7);  // entries that are not objects or have no text name are left as given
  EXPECT_EQ(container["env"][3], json({{"name", 5}}));
  json named = container["env"];
  named.erase(3);
  named.erase(2);
  auto env = env_of(json{{"env", named}});
  EXPECT_EQ(env["MILLRACE_FIRST"], "64");
  EXPECT_EQ(env["KEEP"], "1");
  EXPECT_EQ(job["spec"]["template"]["spec"]["restartPolicy"], "Never");
}

TEST(JobTemplateRender, ItemRequestsReplaceTheTemplatesOnlyForTheirResources) {
  const JobTemplate with_resources = JobTemplate::parse(R"({"apiVersion": "batch/v1", "kind": "Job",
    "spec": {"template": {"spec": {"containers": [
      {"name": "worker", "image": "w:1", "resources": {"requests": {"cpu": "1", "ephemeral-storage": "1Gi"},
                                                        "limits": {"memory": "2Gi"}}},
      {"name": "sidecar", "image": "s:1"}]}}}})", "template");
  data::WorkItem item = range_item();
  item.requests = {{"cpu", 2500}, {"memory", 4LL * 1024 * 1024 * 1024 * 1000}};
  json job = with_resources.render("run-7", "work", test_support::loose_submission(1, item, 1), std::nullopt);
  const json& containers = job["spec"]["template"]["spec"]["containers"];
  EXPECT_EQ(containers[0]["resources"]["requests"],
            json({{"cpu", "2500m"}, {"memory", "4294967296"}, {"ephemeral-storage", "1Gi"}}));
  EXPECT_EQ(containers[0]["resources"]["limits"], json({{"memory", "2Gi"}}));
  EXPECT_FALSE(containers[1].contains("resources"));  // a pod's request is its containers' sum: once
}

TEST(JobTemplateRender, RangePlaceholderOnAnItemWithoutRangeNamesTheItem) {
  data::WorkItem item;
  item.id = "tx-batch";
  item.payload = "{}";
  try {
    test_job_template().render("r", "default", test_support::loose_submission(1, item, 1), std::nullopt);
    FAIL() << "expected an error";
  } catch (const data::Error& e) {
    EXPECT_EQ(e.input(), "work item 'tx-batch'");
  }
}

TEST(JobTemplateParse, RejectsWhatIsNotAJobWithContainers) {
  EXPECT_THROW(JobTemplate::parse("not json", "t.json"), data::Error);
  EXPECT_THROW(JobTemplate::parse(R"({"apiVersion": "v1", "kind": "Pod"})", "t.json"), data::Error);
  EXPECT_THROW(JobTemplate::parse(R"({"apiVersion": "batch/v1", "kind": "Job", "spec": {}})", "t.json"), data::Error);
  // kind or apiVersion of another type (a key given twice, the last an object): the same refusal,
  // not a JSON type error escaping (found by fuzz_job_template)
  for (const char* text : {R"({"apiVersion": "batch/v1", "kind": {"spec": {}}})", R"({"apiVersion": 1, "kind": "Job"})"}) {
    try {
      JobTemplate::parse(text, "t.json");
      ADD_FAILURE() << "expected an error for " << text;
    } catch (const data::Error& e) {
      EXPECT_EQ(e.input(), "t.json");
      EXPECT_EQ(e.problem(), "the Job template must have apiVersion batch/v1 and kind Job");
    }
  }
  try {
    JobTemplate::parse(R"({"apiVersion": "batch/v1", "kind": "Job", "spec": {"template": {"spec":
      {"containers": [{"name": "w", "args": ["{frist}"]}]}}}})", "t.json");
    FAIL() << "expected an error";
  } catch (const data::Error& e) {
    EXPECT_EQ(e.input(), "t.json");
    EXPECT_NE(e.problem().find("{frist}"), std::string::npos);
  }
  EXPECT_THROW(JobTemplate::load("/nonexistent/job.json"), data::Error);
}

TEST(JobTemplateRenderPool, OneIndexedJobWithAPodPerWorkerAndTheLeaseUrl) {
  JobTemplate pool = JobTemplate::parse(R"({"apiVersion": "batch/v1", "kind": "Job",
    "metadata": {"generateName": "x-"},
    "spec": {"activeDeadlineSeconds": 60, "template": {"spec": {"containers": [
      {"name": "w", "image": "i", "args": ["--brace={{literal}}"]}]}}}})", "pool.json");
  json job = pool.render_pool("Run 7", "batch", 6, "http://sched:8642");
  EXPECT_EQ(job["metadata"]["name"], pool_job_name("Run 7"));
  EXPECT_FALSE(job["metadata"].contains("generateName"));
  EXPECT_EQ(job["metadata"]["namespace"], "batch");
  EXPECT_EQ(job["metadata"]["labels"]["millrace.io/pool"], "true");
  EXPECT_EQ(job["spec"]["template"]["metadata"]["labels"]["millrace.io/run"], dns_label("Run 7"));
  EXPECT_EQ(job["spec"]["completionMode"], "Indexed");
  EXPECT_EQ(job["spec"]["completions"], 6);
  EXPECT_EQ(job["spec"]["parallelism"], 6);
  EXPECT_FALSE(job["spec"].contains("activeDeadlineSeconds"));  // the pool lives as long as the run
  EXPECT_EQ(job["spec"]["template"]["spec"]["restartPolicy"], "OnFailure");
  const json& container = job["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(container["args"], json({"--brace={literal}"}));
  std::map<std::string, std::string> env = env_of(container);
  EXPECT_EQ(env["MILLRACE_LEASE_URL"], "http://sched:8642");
  EXPECT_EQ(env["MILLRACE_RUN"], "Run 7");
  EXPECT_EQ(env["MILLRACE_WORKERS"], "6");
}

TEST(JobTemplateRenderPool, ItemPlaceholderIsRefusedNamingTheTemplate) {
  try {
    test_job_template().render_pool("run", "default", 2, "http://sched:8642");
    FAIL() << "expected an error";
  } catch (const data::Error& error) {
    EXPECT_EQ(error.input(), "test template");
    EXPECT_NE(error.problem().find("a worker-pool Job template cannot use {first}"), std::string::npos)
        << error.problem();
  }
}

}  // namespace
}  // namespace millrace::cluster_adapter
