// The nodes that join a Kubernetes cluster while a run runs (an autoscaler's new nodes), kept for
// the cluster fit's node provisioning (sim/cluster_fit.h): a list+watch of /api/v1/nodes (a
// Reflector). The nodes of its first list were there before the run; every node seen after is an
// arrival, with its pool (the first label present of cloud.google.com/gke-nodepool,
// eks.amazonaws.com/nodegroup, karpenter.sh/nodepool, agentpool, else
// node.kubernetes.io/instance-type, else ""), its creation (metadata.creationTimestamp) and when
// it became ready (the Ready condition's lastTransitionTime, once it is True); a recorded node
// deleted meanwhile departs when the deletion is seen, and spot nodes of the first list are
// recorded too (present at the start, without their times) so their departures are: the spot
// pools' interruption rates
// are fitted from them (sim/cluster_fit.h). Whether a node is spot comes from its labels
// (karpenter.sh/capacity-type, eks.amazonaws.com/capacityType, cloud.google.com/gke-spot,
// kubernetes.azure.com/scalesetpriority). Created and ready are the API
// server's times; the news gives them on the run's clock (the attempts' phases are on it), shifted
// by the least difference seen between when an object was seen here and a time it told: the
// server's clock and ours need not agree, and an object is seen after its times, so that least
// difference is their offset plus the shortest delay seen (a whole second at most of truncation).
// Arrivals are told again whenever that estimate moves. Nodes are cluster-scoped: the run's account needs get/list/watch on them
// (deploy/rbac.yaml's ClusterRole). When the server refuses (403), the run goes on and the watch
// says that arrivals are not recorded and why; an object that is not a node with a name is
// skipped and counted.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster_adapter/kubernetes/kube_client.h"
#include "cluster_adapter/kubernetes/reflector.h"
#include "cluster_adapter/realtime/backoff.h"
#include "cluster_adapter/realtime/cluster_kind.h"
#include "data/records.h"
#include "scheduler/clock.h"

namespace millrace::cluster_adapter {

// A node object read as an arrival (its times unknown when absent or malformed); nullopt when
// it is not an API object with a name.
std::optional<data::NodeArrival> view_node(const nlohmann::json& node);

class NodeArrivalWatch {
 public:
  NodeArrivalWatch(KubeClient client, BackoffPolicy backoff, const scheduler::Clock& clock,
                   int watch_timeout_seconds = 300);
  ~NodeArrivalWatch();  // stops the watch first
  NodeArrivalWatch(const NodeArrivalWatch&) = delete;
  NodeArrivalWatch& operator=(const NodeArrivalWatch&) = delete;

  // nullopt when nothing changed since the last call; times on the run's clock. Thread-safe.
  std::optional<NodeArrivalNews> take_news();
  std::size_t arrivals() const;  // nodes that joined during the run (not those present at the start)
  std::size_t skipped() const;  // objects that were no node with a name
  bool listed() const;          // its first list came: nodes seen from now on are arrivals

  // The watch's handlers, called on its thread (public for the tests).
  void on_list(const std::vector<nlohmann::json>& items);
  void on_event(const std::string& type, const nlohmann::json& object);
  void on_trouble(const std::string& problem);

 private:
  void note(const nlohmann::json& object);            // mutex held
  void note_departure(const nlohmann::json& object);  // mutex held

  KubeClient client_;
  const scheduler::Clock& clock_;
  mutable std::mutex mutex_;
  std::optional<data::Micros> offset_;        // ours minus the server's, least seen
  std::optional<data::Micros> offset_told_;   // the one the last news used
  bool listed_ = false;
  std::set<std::string> before_;                         // nodes of the first list
  std::map<std::string, data::NodeArrival> arrivals_;
  std::set<std::string> changed_;
  std::string unrecorded_;
  bool unrecorded_changed_ = false;
  std::size_t skipped_ = 0;
  std::unique_ptr<Reflector> reflector_;  // last: stopped before the rest goes
};

}  // namespace millrace::cluster_adapter
