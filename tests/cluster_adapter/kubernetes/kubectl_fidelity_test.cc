// The loopback API test server speaks the protocol the real kubectl speaks: create, get and
// delete of Jobs through kubectl v1.32 against it, with a temporary kubeconfig.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cluster_adapter/kubernetes/fake_apiserver.h"
#include "tests/support/scratch_dir.h"

namespace millrace::cluster_adapter {
namespace {

namespace fs = std::filesystem;

struct CommandResult {
  int exit_code = 0;
  std::string output;
};

class KubectlOnLoopbackServer : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = scratch_.path();
    std::ofstream(folder_ / "kubeconfig")
        << "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
        << "clusters:\n- name: fake\n  cluster:\n    server: " << server_.url() << "\n"
        << "contexts:\n- name: test\n  context:\n    cluster: fake\n    user: tester\n    namespace: default\n"
        << "users:\n- name: tester\n  user:\n    token: secret-token\n";
  }

  CommandResult kubectl(const std::string& args) {
    std::string command = "kubectl --kubeconfig " + (folder_ / "kubeconfig").string() + " --cache-dir " +
                          (folder_ / "cache").string() + " " + args + " 2>&1";
    CommandResult result;
    FILE* pipe = popen(command.c_str(), "r");
    char buffer[4096];
    for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) result.output.append(buffer, n);
    int status = pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
  }

  void write_job(const std::string& name) {
    std::ofstream(folder_ / "job.json") << R"({"apiVersion": "batch/v1", "kind": "Job",
      "metadata": {"name": ")" << name << R"(", "labels": {"app": "millrace"}},
      "spec": {"backoffLimit": 0, "template": {"spec": {"restartPolicy": "Never",
        "containers": [{"name": "main", "image": "busybox", "command": ["true"]}]}}}})";
  }

  FakeApiServer server_;
  test_support::ScratchDir scratch_;
  fs::path folder_;
};

TEST_F(KubectlOnLoopbackServer, CreateFromJsonFileMakesTheJob) {
  write_job("hello");
  CommandResult r = kubectl("create -f " + (folder_ / "job.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("job.batch/hello created"), std::string::npos) << r.output;
  EXPECT_EQ(server_.record().jobs_created, 1);
}

TEST_F(KubectlOnLoopbackServer, CreatingAnExistingJobReportsAlreadyExists) {
  write_job("twice");
  ASSERT_EQ(kubectl("create -f " + (folder_ / "job.json").string()).exit_code, 0);
  CommandResult r = kubectl("create -f " + (folder_ / "job.json").string());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("AlreadyExists"), std::string::npos) << r.output;
}

TEST_F(KubectlOnLoopbackServer, GetJobsAsJsonListsThemWithStatus) {
  write_job("listed");
  ASSERT_EQ(kubectl("create -f " + (folder_ / "job.json").string()).exit_code, 0);
  CommandResult r = kubectl("get jobs -l app=millrace -o json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto list = nlohmann::json::parse(r.output);
  ASSERT_EQ(list["items"].size(), 1u);
  EXPECT_EQ(list["items"][0]["metadata"]["name"], "listed");
  EXPECT_EQ(list["items"][0]["spec"]["backoffLimit"], 0);
}

TEST_F(KubectlOnLoopbackServer, GetMissingJobFailsWithNotFound) {
  CommandResult r = kubectl("get job nowhere -o json");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("NotFound"), std::string::npos) << r.output;
}

TEST_F(KubectlOnLoopbackServer, DeleteJobRemovesItWithBackgroundPropagation) {
  write_job("doomed");
  ASSERT_EQ(kubectl("create -f " + (folder_ / "job.json").string()).exit_code, 0);
  CommandResult r = kubectl("delete job doomed");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("job.batch \"doomed\" deleted"), std::string::npos) << r.output;
  EXPECT_TRUE(server_.objects("jobs").empty());
  EXPECT_EQ(server_.record().deletes_without_policy, 0);
}

}  // namespace
}  // namespace millrace::cluster_adapter
