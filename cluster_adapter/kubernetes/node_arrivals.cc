#include "cluster_adapter/kubernetes/node_arrivals.h"

#include <algorithm>

#include "cluster_adapter/kubernetes/job_view.h"
#include "cluster_adapter/kubernetes/json_fields.h"

namespace millrace::cluster_adapter {

namespace {

using nlohmann::json;

std::optional<data::Micros> micros_of(std::optional<std::int64_t> seconds) {
  if (!seconds) return std::nullopt;
  return *seconds * data::kMicrosPerSecond;
}

std::string pool_of(const json& labels) {
  for (const char* label : {"cloud.google.com/gke-nodepool", "eks.amazonaws.com/nodegroup", "karpenter.sh/nodepool",
                            "agentpool", "node.kubernetes.io/instance-type"}) {
    const std::string pool = text_field(labels, label);
    if (!pool.empty()) return pool;
  }
  return "";
}

// "spot", "on-demand" or "" from the labels the clouds' autoscalers put on a node.
std::string capacity_type_of(const json& labels) {
  struct Label {
    const char* name;
    const char* spot;       // the value that says spot
    const char* on_demand;  // the value that says on-demand
  };
  constexpr Label kLabels[] = {{"karpenter.sh/capacity-type", "spot", "on-demand"},
                               {"eks.amazonaws.com/capacityType", "SPOT", "ON_DEMAND"},
                               {"cloud.google.com/gke-spot", "true", "false"},
                               {"kubernetes.azure.com/scalesetpriority", "spot", "regular"}};
  for (const Label& label : kLabels) {
    const std::string value = text_field(labels, label.name);
    if (value == label.spot) return "spot";
    if (value == label.on_demand) return "on-demand";
  }
  return "";
}

}  // namespace

std::optional<data::NodeArrival> view_node(const json& node) {
  if (!is_kube_object(node)) return std::nullopt;
  const json& metadata = object_field(node, "metadata");
  data::NodeArrival arrival;
  arrival.node = name_of(node);
  arrival.pool = pool_of(object_field(metadata, "labels"));
  arrival.capacity_type = capacity_type_of(object_field(metadata, "labels"));
  arrival.created = micros_of(parse_rfc3339(text_field(metadata, "creationTimestamp")));
  for (const json& condition : array_field(object_field(node, "status"), "conditions")) {
    if (text_field(condition, "type") != "Ready") continue;
    if (text_field(condition, "status") == "True") {
      arrival.ready = micros_of(parse_rfc3339(text_field(condition, "lastTransitionTime")));
    }
    break;
  }
  return arrival;
}

NodeArrivalWatch::NodeArrivalWatch(KubeClient client, BackoffPolicy backoff, const scheduler::Clock& clock,
                                   int watch_timeout_seconds)
    : client_(std::move(client)), clock_(clock) {
  reflector_ = std::make_unique<Reflector>(
      client_, "/api/v1/nodes", "",
      ReflectorHandlers{[this](std::vector<json> items) { on_list(items); },
                        [this](const std::string& type, const json& object) { on_event(type, object); },
                        [this](const std::string& problem) { on_trouble(problem); }},
      backoff, watch_timeout_seconds);
}

NodeArrivalWatch::~NodeArrivalWatch() { reflector_.reset(); }

void NodeArrivalWatch::note(const json& object) {
  std::optional<data::NodeArrival> node = view_node(object);
  if (!node) {
    ++skipped_;
    return;
  }
  const data::Micros now = clock_.now();
  for (const std::optional<data::Micros>& told : {node->created, node->ready}) {
    if (told && (!offset_ || now - *told < *offset_)) offset_ = now - *told;
  }
  if (!listed_) {
    before_.insert(node->node);
    // A spot node there before the run is watched for its departure (its life is observed).
    if (node->capacity_type != "spot") return;
    node->present_at_start = true;
  } else if (before_.count(node->node) > 0 && arrivals_.count(node->node) == 0) {
    return;
  }
  auto [at, added] = arrivals_.try_emplace(node->node, *node);
  if (!added) {
    node->present_at_start = at->second.present_at_start;
    node->departed = at->second.departed;
    if (at->second == *node) return;
    // What was told once stays told: a later object without a time does not take it back.
    if (!node->created) node->created = at->second.created;
    if (!node->ready) node->ready = at->second.ready;
    at->second = *node;
  }
  changed_.insert(node->node);
}

// A node deleted: a recorded one departs now (on the run's clock: seen here, not told).
void NodeArrivalWatch::note_departure(const json& object) {
  const std::optional<data::NodeArrival> node = view_node(object);
  if (!node) return;
  auto recorded = arrivals_.find(node->node);
  if (recorded == arrivals_.end() || recorded->second.departed) return;
  recorded->second.departed = clock_.now();
  changed_.insert(node->node);
}

void NodeArrivalWatch::on_list(const std::vector<json>& items) {
  std::lock_guard lock(mutex_);
  for (const json& item : items) note(item);
  listed_ = true;
}

void NodeArrivalWatch::on_event(const std::string& type, const json& object) {
  std::lock_guard lock(mutex_);
  if (type == "DELETED") {
    note_departure(object);  // a node leaving keeps its arrival
  } else if (type == "ADDED" || type == "MODIFIED") {
    note(object);
  }
}

void NodeArrivalWatch::on_trouble(const std::string& problem) {
  std::lock_guard lock(mutex_);
  std::string unrecorded;
  if (problem.find("HTTP 403") != std::string::npos) {
    unrecorded = "the API server refused to list or watch nodes (HTTP 403 Forbidden): the run's account needs "
                 "get/list/watch on nodes (deploy/rbac.yaml, ClusterRole millrace-node-reader)";
  } else if (!problem.empty()) {
    return;  // an outage: the watch retries, and the Jobs' own watch reports it
  }
  if (unrecorded == unrecorded_) return;
  unrecorded_ = unrecorded;
  unrecorded_changed_ = true;
}

std::optional<NodeArrivalNews> NodeArrivalWatch::take_news() {
  std::lock_guard lock(mutex_);
  if (offset_ != offset_told_) {  // every arrival told again on the better estimate
    for (const auto& [name, arrival] : arrivals_) changed_.insert(name);
    offset_told_ = offset_;
  }
  if (changed_.empty() && !unrecorded_changed_) return std::nullopt;
  NodeArrivalNews news;
  for (const std::string& name : changed_) {
    data::NodeArrival arrival = arrivals_.at(name);
    if (arrival.present_at_start) {  // its life is watched from the run's start: no arrival times
      arrival.created.reset();
      arrival.ready.reset();
    }
    for (std::optional<data::Micros>* told : {&arrival.created, &arrival.ready}) {  // departed is ours
      if (*told) *told = **told + *offset_;
    }
    news.nodes.push_back(std::move(arrival));
  }
  news.unrecorded = unrecorded_;
  changed_.clear();
  unrecorded_changed_ = false;
  return news;
}

std::size_t NodeArrivalWatch::arrivals() const {
  std::lock_guard lock(mutex_);
  return static_cast<std::size_t>(std::count_if(arrivals_.begin(), arrivals_.end(),
                                                [](const auto& node) { return !node.second.present_at_start; }));
}

bool NodeArrivalWatch::listed() const {
  std::lock_guard lock(mutex_);
  return listed_;
}

std::size_t NodeArrivalWatch::skipped() const {
  std::lock_guard lock(mutex_);
  return skipped_;
}

}  // namespace millrace::cluster_adapter
