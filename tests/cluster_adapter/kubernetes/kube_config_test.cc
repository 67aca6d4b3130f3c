// Kubeconfig (current context, file and inline-data credentials, token) and in-cluster
// configuration, with the errors that name the file.
#include "cluster_adapter/kubernetes/kube_config.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "cluster_adapter/kubernetes/base64.h"
#include "data/error.h"
#include "tests/support/scratch_dir.h"

namespace millrace::cluster_adapter {
namespace {

namespace fs = std::filesystem;

class KubeConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = scratch_.path();
  }

  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(folder_ / name) << text;
    return (folder_ / name).string();
  }

  test_support::ScratchDir scratch_;
  fs::path folder_;
};

// "-----BEGIN CERTIFICATE-----\nCA\n" and "-----BEGIN CERTIFICATE-----\nCLIENT\n" in base64.
constexpr const char* kCaData = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCkNBCg==";
constexpr const char* kCertData = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCkNMSUVOVAo=";

TEST_F(KubeConfigTest, CurrentContextWithInlineDataCredentials) {
  std::string path = write("config", std::string(R"(apiVersion: v1
kind: Config
current-context: prod
clusters:
- name: staging
  cluster: {server: https://staging:6443}
- name: prod-cluster
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority-data: )") + kCaData + R"(
contexts:
- name: staging
  context: {cluster: staging, user: nobody}
- name: prod
  context: {cluster: prod-cluster, user: admin, namespace: batch-work}
users:
- name: admin
  user:
    client-certificate-data: )" + kCertData + R"(
    client-key-data: )" + kCertData + "\n");
  KubeConfig config = load_kubeconfig(path);
  EXPECT_EQ(config.server, "https://10.0.0.1:6443");
  EXPECT_EQ(config.namespace_name, "batch-work");
  EXPECT_EQ(config.certificate_authority.data, "-----BEGIN CERTIFICATE-----\nCA\n");
  EXPECT_EQ(config.client_certificate.data, "-----BEGIN CERTIFICATE-----\nCLIENT\n");
  EXPECT_FALSE(config.client_key.empty());
  EXPECT_TRUE(config.token.empty());
}

TEST_F(KubeConfigTest, NamedContextWithFilesRelativeToTheKubeconfigAndToken) {
  std::string path = write("config", R"(current-context: a
clusters:
- name: c
  cluster: {server: https://k:443, certificate-authority: pki/ca.crt}
contexts:
- name: a
  context: {cluster: c, user: u}
- name: b
  context: {cluster: c, user: v}
users:
- name: u
  user: {token: abc}
- name: v
  user: {client-certificate: /etc/pki/v.crt, client-key: v.key, token: "xyz  "}
)");
  KubeConfig config = load_kubeconfig(path, "b");
  EXPECT_EQ(config.certificate_authority.file, (folder_ / "pki/ca.crt").string());
  EXPECT_EQ(config.client_certificate.file, "/etc/pki/v.crt");
  EXPECT_EQ(config.client_key.file, (folder_ / "v.key").string());
  EXPECT_EQ(config.token, "xyz");
  EXPECT_EQ(config.namespace_name, "default");
  EXPECT_EQ(load_kubeconfig(path).token, "abc");
}

// `tokenFile: /dev/zero` read 2.3 GB. Every credential and config file is read bounded and
// must be a regular file: a device, a FIFO (which would block the read), a directory or a file
// over the cap is refused naming the file, its use and the problem, before anything is read.
TEST_F(KubeConfigTest, CredentialFilesMustBeSmallRegularFiles) {
  const std::string fifo = (folder_ / "token.fifo").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string big = write("big.token", std::string((1 << 20) + 1, 'x'));
  fs::create_directories(folder_ / "certs");
  const auto refusal = [&](const std::string& user) {
    const std::string path = write("config", R"(current-context: a
clusters:
- name: c
  cluster: {server: https://k:443}
contexts:
- name: a
  context: {cluster: c, user: u}
users:
- name: u
  user: )" + user + "\n");
    try {
      load_kubeconfig(path);
    } catch (const data::Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal("{tokenFile: /dev/zero}"), "/dev/zero: the token file must be a regular file, this is a device");
  EXPECT_EQ(refusal("{tokenFile: token.fifo}"), fifo + ": the token file must be a regular file, this is a FIFO");
  EXPECT_EQ(refusal("{tokenFile: big.token}"),
            big + ": the token file is 1048577 bytes, over the limit of 1048576");
  EXPECT_EQ(refusal("{tokenFile: certs}"),
            (folder_ / "certs").string() + ": the token file must be a regular file, this is a directory");
  EXPECT_EQ(refusal("{client-certificate: /dev/zero, client-key: k.key}"),
            "/dev/zero: the client-certificate file must be a regular file, this is a device");
  EXPECT_EQ(refusal("{tokenFile: missing.token}").rfind((folder_ / "missing.token").string() +
                                                         ": cannot read the token file: No such file", 0),
            0u);
  write("ok.token", "s3cret\n");
  EXPECT_EQ(refusal("{tokenFile: ok.token}"), "accepted");
  try {
    load_kubeconfig("/dev/zero");
    FAIL() << "/dev/zero accepted as a kubeconfig";
  } catch (const data::Error& e) {
    EXPECT_EQ(std::string(e.what()), "/dev/zero: the kubeconfig must be a regular file, this is a device");
  }
}

TEST_F(KubeConfigTest, MissingContextIsAnErrorNamingTheFile) {
  std::string path = write("config", "current-context: gone\nclusters: []\ncontexts: []\nusers: []\n");
  try {
    load_kubeconfig(path);
    FAIL() << "expected an error";
  } catch (const data::Error& e) {
    EXPECT_EQ(e.input(), path);
    EXPECT_NE(e.problem().find("gone"), std::string::npos);
  }
}

TEST_F(KubeConfigTest, ExecCredentialsAreRejectedClearly) {
  std::string path = write("config", R"(current-context: a
clusters: [{name: c, cluster: {server: "https://k"}}]
contexts: [{name: a, context: {cluster: c, user: u}}]
users: [{name: u, user: {exec: {command: aws}}}]
)");
  EXPECT_THROW(load_kubeconfig(path), data::Error);
}

TEST_F(KubeConfigTest, NotYamlIsAnErrorWithTheLine) {
  std::string path = write("config", "clusters:\n  - name: [unclosed\n");
  try {
    load_kubeconfig(path);
    FAIL() << "expected an error";
  } catch (const data::Error& e) {
    EXPECT_EQ(e.input().rfind(path + ":", 0), 0u) << e.input();
  }
}

TEST_F(KubeConfigTest, InClusterReadsServiceAccountAndServiceEnvironment) {
  write("token", "sa-token\n");
  write("ca.crt", "-----BEGIN CERTIFICATE-----\n");
  write("namespace", "millrace\n");
  auto env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "KUBERNETES_SERVICE_HOST") return "10.96.0.1";
    if (name == "KUBERNETES_SERVICE_PORT") return "443";
    return std::nullopt;
  };
  KubeConfig config = load_in_cluster_config(folder_.string(), env);
  EXPECT_EQ(config.server, "https://10.96.0.1:443");
  EXPECT_EQ(config.token, "sa-token");
  EXPECT_EQ(config.namespace_name, "millrace");
  EXPECT_EQ(config.certificate_authority.file, (folder_ / "ca.crt").string());
}

TEST_F(KubeConfigTest, InClusterOutsideAPodIsAnError) {
  auto env = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  EXPECT_THROW(load_in_cluster_config(folder_.string(), env), data::Error);
}

TEST(Base64, DecodesWithAndWithoutPaddingAndRejectsGarbage) {
  EXPECT_EQ(base64_decode("aGVsbG8="), "hello");
  EXPECT_EQ(base64_decode("aGVsbG8"), "hello");
  EXPECT_EQ(base64_decode("aGVs\nbG8h"), "hello!");
  EXPECT_FALSE(base64_decode("a$b").has_value());
}

}  // namespace
}  // namespace millrace::cluster_adapter
