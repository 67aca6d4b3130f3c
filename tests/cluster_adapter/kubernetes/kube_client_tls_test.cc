// The kubeconfig's credential paths over HTTPS, against the loopback API test server serving
// TLS with certificates made at test time: certificate-authority as a file and as data, a
// bearer token, a client certificate and key as files and as data, insecure-skip-tls-verify,
// and the failures an operator must be able to read: a wrong CA (named server, not retried), a
// refused token, no credentials at all. A Job runs end to end over TLS (watches too).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "cluster_adapter/kubernetes/kube_client.h"
#include "cluster_adapter/kubernetes/kube_config.h"
#include "cluster_adapter/kubernetes/kubernetes_cluster.h"
#include "tests/support/loose_plans.h"
#include "tests/cluster_adapter/kubernetes/k8s_test_support.h"
#include "tests/cluster_adapter/kubernetes/test_certificates.h"
#include "tests/support/scratch_dir.h"

namespace millrace::cluster_adapter {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPodsPath = "/api/v1/namespaces/default/pods";

class KubeClientTlsOnLoopbackServer : public ::testing::Test {
 protected:
  KubeClientTlsOnLoopbackServer()
      : dir_(scratch_.path()), certs_(TestCertificates::make(dir_)) {}
  ~KubeClientTlsOnLoopbackServer() override { server_.reset(); }

  // Starts the server over TLS; with `client_certificates`, it requires one signed by the CA.
  void serve(bool client_certificates, const std::string& token = "") {
    FakeApiServerOptions options;
    options.tls = FakeApiTls{certs_.server_certificate, certs_.server_key, client_certificates ? certs_.ca : ""};
    options.required_token = token;
    server_ = std::make_unique<FakeApiServer>(options);
  }

  // A kubeconfig in the test folder whose cluster and user have these extra YAML lines.
  std::string kubeconfig(const std::string& cluster_lines, const std::string& user_lines) {
    std::string path = (dir_ / "kubeconfig").string();
    std::ofstream(path) << "apiVersion: v1\nkind: Config\ncurrent-context: tls\n"
                           "clusters:\n- name: loopback\n  cluster:\n    server: "
                        << server_->url() << "\n" << cluster_lines
                        << "contexts:\n- name: tls\n  context: {cluster: loopback, user: tester}\n"
                           "users:\n- name: tester\n  user:\n"
                        << (user_lines.empty() ? "    {}\n" : user_lines);
    return path;
  }

  // The error of a GET of the pods with this kubeconfig, and how many retries were attempted.
  KubeApiError failure(const std::string& path, int* retries) {
    KubeClient client(load_kubeconfig(path), {1 * data::kMicrosPerMilli, 1 * data::kMicrosPerMilli, 3});
    try {
      client.call("GET", kPodsPath, std::nullopt, {}, [&](const KubeApiError&, data::Micros) { ++*retries; });
    } catch (const KubeApiError& error) {
      return error;
    }
    ADD_FAILURE() << "the call succeeded";
    return KubeApiError("", 0, "", "");
  }

  test_support::ScratchDir scratch_;
  fs::path dir_;
  TestCertificates certs_;
  std::unique_ptr<FakeApiServer> server_;
};

TEST_F(KubeClientTlsOnLoopbackServer, CertificateAuthorityFileAndBearerToken) {
  serve(false, "s3cret");
  std::string path = kubeconfig("    certificate-authority: ca.crt\n", "    token: s3cret\n");
  nlohmann::json pods = KubeClient(load_kubeconfig(path)).call("GET", kPodsPath);
  EXPECT_EQ(pods["kind"], "PodList");
}

TEST_F(KubeClientTlsOnLoopbackServer, RefusedTokenIsUnauthorizedAndNotRetried) {
  serve(false, "s3cret");
  int retries = 0;
  KubeApiError error = failure(kubeconfig("    certificate-authority: ca.crt\n", "    token: guess\n"), &retries);
  EXPECT_EQ(error.status(), 401);
  EXPECT_EQ(error.reason(), "Unauthorized");
  EXPECT_EQ(retries, 0);
}

TEST_F(KubeClientTlsOnLoopbackServer, InlineCertificateAuthorityAndClientCertificateData) {
  serve(true);
  std::string path = kubeconfig("    certificate-authority-data: " + TestCertificates::base64_of(certs_.ca) + "\n",
                                "    client-certificate-data: " + TestCertificates::base64_of(certs_.client_certificate) +
                                    "\n    client-key-data: " + TestCertificates::base64_of(certs_.client_key) + "\n");
  EXPECT_EQ(KubeClient(load_kubeconfig(path)).call("GET", kPodsPath)["kind"], "PodList");
}

TEST_F(KubeClientTlsOnLoopbackServer, ClientCertificateAndKeyFilesRelativeToTheKubeconfig) {
  serve(true);
  std::string path = kubeconfig("    certificate-authority-data: " + TestCertificates::base64_of(certs_.ca) + "\n",
                                "    client-certificate: client.crt\n    client-key: client.key\n");
  EXPECT_EQ(KubeClient(load_kubeconfig(path)).call("GET", kPodsPath)["kind"], "PodList");
}

TEST_F(KubeClientTlsOnLoopbackServer, WrongCertificateAuthorityIsAClearErrorNamingTheServerAndIsNotRetried) {
  serve(false);
  std::string path = kubeconfig("    certificate-authority: wrong-ca.crt\n", "");
  int retries = 0;
  KubeApiError error = failure(path, &retries);
  std::string message = error.what();
  EXPECT_EQ(message.rfind(server_->url() + kPodsPath + ": no response (TLS): ", 0), 0u) << message;
  EXPECT_NE(message.find("the server's certificate is not trusted by the configured certificate authority"),
            std::string::npos) << message;
  EXPECT_NE(message.find("certificate-authority / certificate-authority-data in " + path), std::string::npos)
      << message;
  EXPECT_FALSE(error.retryable());
  EXPECT_EQ(retries, 0);
}

TEST_F(KubeClientTlsOnLoopbackServer, NeitherClientCertificateNorTokenIsUnauthorized) {
  serve(true);
  int retries = 0;
  KubeApiError error = failure(kubeconfig("    certificate-authority: ca.crt\n", ""), &retries);
  EXPECT_EQ(error.status(), 401);
  EXPECT_EQ(error.reason(), "Unauthorized");
  EXPECT_EQ(retries, 0);
}

TEST_F(KubeClientTlsOnLoopbackServer, InsecureSkipTlsVerifyAcceptsAnUnknownServerCertificate) {
  serve(false);
  std::string path = kubeconfig("    insecure-skip-tls-verify: true\n", "");
  EXPECT_EQ(KubeClient(load_kubeconfig(path)).call("GET", kPodsPath)["kind"], "PodList");
}

TEST_F(KubeClientTlsOnLoopbackServer, JobRunsToItsEndOverTlsWithAClientCertificate) {
  serve(true);
  std::string path = kubeconfig("    certificate-authority: ca.crt\n",
                                "    client-certificate: client.crt\n    client-key: client.key\n");
  data::WorkItem item;
  item.id = "r0";
  item.range = data::Range{0, 10};
  SteadyTestClock clock;
  RecordingListener listener;
  KubernetesClusterOptions options;
  options.run = "tls";
  options.backoff = fast_backoff();
  KubernetesCluster cluster(KubeClient(load_kubeconfig(path), fast_backoff()), test_job_template(), options, clock);
  cluster.set_listener(&listener);
  cluster.submit(test_support::loose_submission(1, item, 1));
  ASSERT_TRUE(poll_until(cluster, [&] { return listener.count("succeeded") == 1; }));
  EXPECT_EQ(listener.count("started"), 1);
  EXPECT_TRUE(cluster.status().api.reachable);
}

}  // namespace
}  // namespace millrace::cluster_adapter
