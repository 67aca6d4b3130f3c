#include "cluster_adapter/kubernetes/job_template.h"

#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string_view>

#include "cluster_adapter/kubernetes/json_fields.h"
#include "cluster_adapter/realtime/attempt_values.h"
#include "cluster_adapter/realtime/placeholder_text.h"
#include "data/error.h"
#include "data/importers/json_input.h"
#include "data/quantity.h"
#include "data/small_file.h"

namespace millrace::cluster_adapter {

namespace {

using nlohmann::json;

std::string hash_hex(const std::string& text) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char out[9];
  std::snprintf(out, sizeof out, "%08x", static_cast<unsigned>(h ^ (h >> 32)));
  return out;
}

// The pieces of a command or argument of the template; an error names the template and quotes
// the argument.
std::vector<TextPiece> argument_pieces(const std::string& arg, const std::string& origin,
                                       std::span<const std::string_view> known) {
  try {
    return parse_placeholders(arg, origin, known);
  } catch (const data::Error& error) {
    throw data::Error(origin, error.problem() + " in \"" + arg + "\"");
  }
}

// The MILLRACE_* env var of an attempt value: its name upper-cased, the item's id MILLRACE_ITEM.
std::string env_name(std::string_view value_name) {
  if (value_name == "id") return "MILLRACE_ITEM";
  std::string name = "MILLRACE_";
  for (char c : value_name) name += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

// Applies `fn` to every string of every container's command and args.
template <typename Fn>
void for_each_argument(json& manifest, Fn fn) {
  for (auto& container : manifest["spec"]["template"]["spec"]["containers"]) {
    for (const char* field : {"command", "args"}) {
      if (!container.contains(field)) continue;
      for (auto& arg : container[field]) {
        if (arg.is_string()) arg = fn(arg.get<std::string>());
      }
    }
  }
}

void set_env(json& container, const std::string& name, const std::string& value) {
  json& env = container["env"];
  if (!env.is_array()) env = json::array();
  for (auto& entry : env) {
    if (text_field(entry, "name") == name) {
      entry = {{"name", name}, {"value", value}};
      return;
    }
  }
  env.push_back({{"name", name}, {"value", value}});
}

}  // namespace

std::string dns_label(const std::string& text, std::size_t max) {
  std::string out;
  for (unsigned char c : text) {
    out += std::isalnum(c) ? static_cast<char>(std::tolower(c)) : '-';
  }
  while (!out.empty() && out.front() == '-') out.erase(out.begin());
  while (!out.empty() && out.back() == '-') out.pop_back();
  if (out == text && !out.empty() && out.size() <= max) return out;
  std::string hash = hash_hex(text);
  out = out.substr(0, max - hash.size() - 1);
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "x" + hash : out + "-" + hash;
}

std::string pool_job_name(const std::string& run) { return dns_label(run + "-pool"); }

std::string job_name(const std::string& run, const std::string& item_id, int attempt) {
  return dns_label(run + "-" + item_id + "-a" + std::to_string(attempt));
}

JobTemplate JobTemplate::parse(const std::string& text, const std::string& origin) {
  json manifest = data::importers::parse_json_or_discarded(text);
  if (manifest.is_discarded() || !manifest.is_object()) {
    throw data::Error(origin, "the Job template is not a JSON object");
  }
  if (text_field(manifest, "kind") != "Job" || text_field(manifest, "apiVersion") != "batch/v1") {
    throw data::Error(origin, "the Job template must have apiVersion batch/v1 and kind Job");
  }
  const json* containers = nullptr;
  try {
    containers = &manifest.at("spec").at("template").at("spec").at("containers");
  } catch (const json::exception&) {
  }
  if (!containers || !containers->is_array() || containers->empty()) {
    throw data::Error(origin, "the Job template has no spec.template.spec.containers");
  }
  for_each_argument(manifest, [&](const std::string& arg) {
    argument_pieces(arg, origin, kAttemptValueNames);
    return arg;
  });
  return JobTemplate(std::move(manifest), origin);
}

JobTemplate JobTemplate::load(const std::string& path) {
  return parse(data::read_small_file(path, "Job template", data::kMaxConfigBytes), path);
}

json JobTemplate::render(const std::string& run, const std::string& ns, const scheduler::Submission& submission,
                         std::optional<int> active_deadline_seconds) const {
  const data::WorkItem item = submission.item();
  std::string name = job_name(run, item.id, submission.attempt);
  std::map<std::string, std::string> values;
  std::map<std::string, std::string> env = {{"MILLRACE_RUN", run}};
  for (const AttemptValue& value : attempt_values(item, submission.attempt)) {
    values[std::string(value.name)] = value.text;
    env[env_name(value.name)] = value.text;
  }

  json job = manifest_;
  json labels = {{kRunLabel, dns_label(run)}, {kItemLabel, dns_label(item.id)},
                 {kAttemptLabel, std::to_string(submission.attempt)}};
  json& meta = job["metadata"];
  if (!meta.is_object()) meta = json::object();
  meta.erase("generateName");
  meta["name"] = name;
  meta["namespace"] = ns;
  meta["labels"].update(labels);
  meta["annotations"].update({{kItemAnnotation, item.id}, {kHandleAnnotation, std::to_string(submission.handle)}});

  json& spec = job["spec"];
  spec["backoffLimit"] = 0;
  spec["completions"] = 1;
  spec["parallelism"] = 1;
  if (active_deadline_seconds) spec["activeDeadlineSeconds"] = *active_deadline_seconds;
  json& pod_meta = spec["template"]["metadata"];
  if (!pod_meta.is_object()) pod_meta = json::object();
  pod_meta["labels"].update(labels);
  pod_meta["labels"][kJobLabel] = name;
  spec["template"]["spec"]["restartPolicy"] = "Never";

  for_each_argument(job, [&](const std::string& arg) {
    return fill_placeholders(argument_pieces(arg, origin_, kAttemptValueNames),
                             [&](const std::string& name) {
                               auto found = values.find(name);
                               if (found == values.end()) {
                                 throw data::Error("work item '" + item.id + "'",
                                                   "has no range but the Job template uses {" + name + "}");
                               }
                               return found->second;
                             });
  });
  for (auto& container : spec["template"]["spec"]["containers"]) {
    for (const auto& [key, value] : env) set_env(container, key, value);
  }
  if (!item.requests.empty()) {
    json& resources = spec["template"]["spec"]["containers"][0]["resources"];
    if (!resources.is_object()) resources = json::object();
    json& requests = resources["requests"];
    if (!requests.is_object()) requests = json::object();
    for (const auto& [resource, milli] : item.requests) requests[resource] = data::format_quantity_milli(milli);
  }
  return job;
}

json JobTemplate::render_pool(const std::string& run, const std::string& ns, int workers,
                              const std::string& lease_url, const std::string& lease_token) const {
  json job = manifest_;
  for_each_argument(job, [&](const std::string& arg) {
    // Only "{{" and "}}" may be left to unescape.
    return fill_placeholders(argument_pieces(arg, origin_, {}),
                             [&](const std::string& name) -> std::string {
                               throw data::Error(origin_, "a worker-pool Job template cannot use {" + name +
                                                              "} (in \"" + arg +
                                                              "\"): pool workers get each item from the lease API "
                                                              "at MILLRACE_LEASE_URL");
                             });
  });
  json labels = {{kRunLabel, dns_label(run)}, {kPoolLabel, "true"}};
  json& meta = job["metadata"];
  if (!meta.is_object()) meta = json::object();
  meta.erase("generateName");
  meta["name"] = pool_job_name(run);
  meta["namespace"] = ns;
  meta["labels"].update(labels);
  json& spec = job["spec"];
  spec["completionMode"] = "Indexed";
  spec["completions"] = workers;
  spec["parallelism"] = workers;
  spec.erase("activeDeadlineSeconds");
  json& pod_meta = spec["template"]["metadata"];
  if (!pod_meta.is_object()) pod_meta = json::object();
  pod_meta["labels"].update(labels);
  spec["template"]["spec"]["restartPolicy"] = "OnFailure";
  for (auto& container : spec["template"]["spec"]["containers"]) {
    set_env(container, "MILLRACE_RUN", run);
    set_env(container, "MILLRACE_LEASE_URL", lease_url);
    set_env(container, "MILLRACE_WORKERS", std::to_string(workers));
    if (!lease_token.empty()) set_env(container, "MILLRACE_LEASE_TOKEN", lease_token);
  }
  return job;
}

std::string pool_lease_token(const json& job) {
  const json& pod_spec = object_field(object_field(object_field(job, "spec"), "template"), "spec");
  const json& containers = array_field(pod_spec, "containers");
  if (containers.empty()) return "";
  for (const json& variable : array_field(containers.front(), "env")) {
    if (text_field(variable, "name") == "MILLRACE_LEASE_TOKEN") return text_field(variable, "value");
  }
  return "";
}

}  // namespace millrace::cluster_adapter
