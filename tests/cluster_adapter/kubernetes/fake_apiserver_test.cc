// The loopback API test server's Indexed Jobs (which the RealApiServer suite's v1.20 lacks), as
// the worker-pool mode relies on them: one pod per index carrying its index, a failed index's
// pod replaced, completedIndexes and the Complete condition once every index succeeded, and
// the validation of completionMode.
#include <gtest/gtest.h>

#include <atomic>

#include "cluster_adapter/kubernetes/kube_client.h"
#include "tests/cluster_adapter/kubernetes/k8s_test_support.h"

namespace millrace::cluster_adapter {
namespace {

using nlohmann::json;

const std::string kJobs = "/apis/batch/v1/namespaces/default/jobs";

json indexed_job(const json& completions) {
  json job = {{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", {{"name", "pool"}}},
              {"spec", {{"completionMode", "Indexed"}, {"parallelism", 3}, {"backoffLimit", 2},
                        {"template", {{"spec", {{"restartPolicy", "OnFailure"},
                                                {"containers", {{{"name", "c"}, {"image", "i"}}}}}}}}}}};
  if (!completions.is_null()) job["spec"]["completions"] = completions;
  return job;
}

TEST(LoopbackServerIndexedJobs, OnePodPerIndexAFailedOneReplacedAndCompleteWhenEveryIndexSucceeded) {
  std::atomic<int> pods_made{0};
  FakeApiServer server({[&](const json&) {
                          // The second pod made (index 1) fails; its replacement succeeds.
                          return PodPlan{0, 5 * data::kMicrosPerMilli, ++pods_made == 2 ? 3 : 0};
                        },
                        1 * data::kMicrosPerMilli});
  KubeClient client(test_server_config(server), fast_backoff());
  client.call("POST", kJobs, indexed_job(3));
  json job;
  for (int i = 0; i < 3000; ++i, std::this_thread::sleep_for(std::chrono::milliseconds(2))) {
    job = client.call("GET", kJobs + "/pool");
    if (!job["status"].value("conditions", json::array()).empty()) break;
  }
  EXPECT_EQ(job["status"]["conditions"][0]["type"], "Complete");
  EXPECT_EQ(job["status"]["succeeded"], 3);
  EXPECT_EQ(job["status"]["failed"], 1);
  EXPECT_EQ(job["status"]["completedIndexes"], "0-2");
  EXPECT_EQ(pods_made, 4);
  std::map<std::string, std::string> index_of_pod;
  for (const json& pod : server.objects("pods")) {
    std::string index = pod["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"];
    EXPECT_EQ(pod["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"], index);
    EXPECT_EQ(pod["spec"]["containers"][0]["env"][0], json({{"name", "JOB_COMPLETION_INDEX"}, {"value", index}}));
    index_of_pod[pod["metadata"]["name"]] = index;
  }
  EXPECT_EQ(index_of_pod, (std::map<std::string, std::string>{
                              {"pool-0-0", "0"}, {"pool-1-0", "1"}, {"pool-1-1", "1"}, {"pool-2-0", "2"}}));
}

TEST(LoopbackServerIndexedJobs, IndexedJobWithoutCompletionsIsInvalid) {
  FakeApiServer server;
  KubeClient client(test_server_config(server), fast_backoff());
  try {
    client.call("POST", kJobs, indexed_job(nullptr));
    FAIL() << "expected 422";
  } catch (const KubeApiError& error) {
    EXPECT_EQ(error.status(), 422);
    EXPECT_NE(error.message().find("spec.completions: Required value"), std::string::npos) << error.message();
  }
}

}  // namespace
}  // namespace millrace::cluster_adapter
