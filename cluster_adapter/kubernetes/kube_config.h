// Where and how to reach a Kubernetes API server: the current context of a kubeconfig file or
// the in-cluster service account. Credentials stay as the kubeconfig gives them (a file path or
// inline PEM data) so the API client can hand either form to libcurl without temporary files.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace millrace::cluster_adapter {

// A PEM credential given either as a file path or as the PEM text itself.
struct PemSource {
  std::string file;
  std::string data;

  bool empty() const { return file.empty() && data.empty(); }
};

struct KubeConfig {
  std::string server;                   // https://host:port (or http:// for loopback tests)
  std::string namespace_name = "default";
  PemSource certificate_authority;
  PemSource client_certificate;
  PemSource client_key;
  std::string token;                    // bearer token, empty when none
  bool insecure_skip_tls_verify = false;
  std::string origin;                   // where the configuration came from, for error messages
};

// Reads the kubeconfig at `path` and resolves `context` (empty: current-context). Relative
// file paths inside it are resolved against the kubeconfig's folder. Throws data::Error naming
// the file when it is unreadable, not YAML, or the context, cluster or user is missing.
KubeConfig load_kubeconfig(const std::string& path, const std::string& context = "");

// The in-cluster configuration: token, CA and namespace under `root` (normally
// /var/run/secrets/kubernetes.io/serviceaccount) and KUBERNETES_SERVICE_HOST/PORT read through
// `getenv`. Throws data::Error naming what is missing.
KubeConfig load_in_cluster_config(
    const std::string& root = "/var/run/secrets/kubernetes.io/serviceaccount",
    const std::function<std::optional<std::string>(const std::string&)>& getenv = {});

}  // namespace millrace::cluster_adapter
