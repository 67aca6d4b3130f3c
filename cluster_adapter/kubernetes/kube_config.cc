#include "cluster_adapter/kubernetes/kube_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "cluster_adapter/kubernetes/base64.h"
#include "data/error.h"
#include "data/redaction.h"
#include "data/small_file.h"

namespace millrace::cluster_adapter {

namespace {

namespace fs = std::filesystem;

std::string trimmed(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

// A value that goes into an HTTP request (the server URL, the namespace in paths, the token in a
// header): a control character (CR, LF, ...) in it would let it add headers or requests of its
// own, so it is refused, naming the setting but never showing the value.
void refuse_control_characters(const std::string& value, const std::string& setting, const std::string& origin) {
  auto bad = std::find_if(value.begin(), value.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
  if (bad == value.end()) return;
  char code[8];
  std::snprintf(code, sizeof code, "0x%02x", static_cast<unsigned char>(*bad));
  throw data::Error(origin, setting + " contains a control character (" + code + " at offset " +
                                std::to_string(bad - value.begin()) + "); refused, it would be sent in an HTTP request");
}

// Checks what goes into requests and registers the credentials with the redaction layer, so
// no message, status or record shows them.
KubeConfig checked(KubeConfig config, const std::string& user) {
  refuse_control_characters(config.server, "the cluster's server", config.origin);
  refuse_control_characters(config.namespace_name, "the namespace", config.origin);
  refuse_control_characters(config.token, "user '" + user + "' token", config.origin);
  data::register_secret(config.token);
  data::register_secret(config.client_key.data);
  const std::size_t scheme = config.server.find("://");
  const std::size_t at = config.server.find('@', scheme == std::string::npos ? 0 : scheme + 3);
  const std::size_t host = config.server.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (scheme != std::string::npos && at != std::string::npos && (host == std::string::npos || at < host)) {
    const std::string user_info = config.server.substr(scheme + 3, at - scheme - 3);
    if (std::size_t colon = user_info.find(':'); colon != std::string::npos) data::register_secret(user_info.substr(colon + 1));
  }
  return config;
}

// The entry named `name` in a kubeconfig list such as `clusters` (each {name, <key>: {...}}).
YAML::Node named_entry(const YAML::Node& root, const std::string& list, const std::string& key,
                       const std::string& name, const std::string& path) {
  for (const auto& entry : root[list]) {
    if (entry["name"] && entry["name"].as<std::string>() == name && entry[key]) return entry[key];
  }
  throw data::Error(path, "no " + key + " named '" + name + "' in " + list);
}

std::string scalar(const YAML::Node& node, const std::string& key) {
  return node[key] ? node[key].as<std::string>() : std::string();
}

// A credential given as `<key>` (a path, relative to the kubeconfig) or `<key>-data` (base64).
PemSource pem_source(const YAML::Node& node, const std::string& key, const fs::path& folder,
                     const std::string& path) {
  PemSource source;
  std::string encoded = scalar(node, key + "-data");
  if (!encoded.empty()) {
    auto decoded = base64_decode(encoded);
    if (!decoded) throw data::Error(path, key + "-data is not base64");
    source.data = *decoded;
  } else if (std::string file = scalar(node, key); !file.empty()) {
    fs::path p(file);
    source.file = p.is_absolute() ? p.string() : (folder / p).string();
    // libcurl reads it when it connects (and names it if it is missing): what is there must be a
    // small regular file.
    if (fs::exists(source.file)) data::check_small_file(source.file, key + " file", data::kMaxCredentialBytes);
  }
  return source;
}

}  // namespace

KubeConfig load_kubeconfig(const std::string& path, const std::string& context) {
  std::string text = data::read_small_file(path, "kubeconfig", data::kMaxConfigBytes);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw data::Error(path + ":" + std::to_string(e.mark.line + 1), "not YAML: " + e.msg);
  }
  try {
    std::string context_name = context.empty() ? scalar(root, "current-context") : context;
    if (context_name.empty()) throw data::Error(path, "no current-context and no context given");
    YAML::Node ctx = named_entry(root, "contexts", "context", context_name, path);
    YAML::Node cluster = named_entry(root, "clusters", "cluster", scalar(ctx, "cluster"), path);
    fs::path folder = fs::absolute(fs::path(path)).parent_path();

    KubeConfig config;
    config.origin = path;
    config.server = scalar(cluster, "server");
    if (config.server.empty()) throw data::Error(path, "cluster '" + scalar(ctx, "cluster") + "' has no server");
    if (std::string ns = scalar(ctx, "namespace"); !ns.empty()) config.namespace_name = ns;
    config.certificate_authority = pem_source(cluster, "certificate-authority", folder, path);
    config.insecure_skip_tls_verify = cluster["insecure-skip-tls-verify"] &&
                                      cluster["insecure-skip-tls-verify"].as<bool>();
    if (std::string user_name = scalar(ctx, "user"); !user_name.empty()) {
      YAML::Node user = named_entry(root, "users", "user", user_name, path);
      if (user["exec"] || user["auth-provider"]) {
        throw data::Error(path, "user '" + user_name + "' uses exec/auth-provider credentials, which are not supported; use a token or client certificate");
      }
      config.client_certificate = pem_source(user, "client-certificate", folder, path);
      config.client_key = pem_source(user, "client-key", folder, path);
      config.token = scalar(user, "token");
      if (std::string token_file = scalar(user, "tokenFile"); config.token.empty() && !token_file.empty()) {
        fs::path p(token_file);
        config.token = data::read_small_file(p.is_absolute() ? p.string() : (folder / p).string(), "token file",
                                              data::kMaxCredentialBytes);
      }
    }
    config.token = trimmed(config.token);
    return checked(std::move(config), scalar(ctx, "user"));
  } catch (const YAML::Exception& e) {
    throw data::Error(path + ":" + std::to_string(e.mark.line + 1), "malformed kubeconfig: " + e.msg);
  }
}

KubeConfig load_in_cluster_config(
    const std::string& root, const std::function<std::optional<std::string>(const std::string&)>& getenv) {
  auto env = [&](const std::string& name) -> std::string {
    if (getenv) return getenv(name).value_or("");
    const char* value = std::getenv(name.c_str());
    return value ? value : "";
  };
  std::string host = env("KUBERNETES_SERVICE_HOST");
  std::string port = env("KUBERNETES_SERVICE_PORT");
  if (host.empty() || port.empty()) {
    throw data::Error("in-cluster config", "KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT are not set (not running in a pod?)");
  }
  fs::path folder(root);
  KubeConfig config;
  config.origin = root;
  config.server = "https://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + port;
  config.token = trimmed(data::read_small_file((folder / "token").string(), "service account token",
                                                      data::kMaxCredentialBytes));
  config.certificate_authority.file = (folder / "ca.crt").string();
  if (!fs::exists(config.certificate_authority.file)) {
    throw data::Error(config.certificate_authority.file, "service account CA certificate is missing");
  }
  data::check_small_file(config.certificate_authority.file, "service account CA certificate", data::kMaxCredentialBytes);
  if (fs::exists(folder / "namespace")) {
    std::string ns = trimmed(data::read_small_file((folder / "namespace").string(), "namespace file",
                                                       data::kMaxCredentialBytes));
    if (!ns.empty()) config.namespace_name = ns;
  }
  return checked(std::move(config), "service account");
}

}  // namespace millrace::cluster_adapter
