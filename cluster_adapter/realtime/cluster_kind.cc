#include "cluster_adapter/realtime/cluster_kind.h"

#include "data/error.h"

namespace millrace::cluster_adapter {

void ClusterKinds::add(std::unique_ptr<ClusterKind> kind) { kinds_.push_back(std::move(kind)); }

ClusterKind& ClusterKinds::find(const std::string& name, const std::string& input) const {
  for (const std::unique_ptr<ClusterKind>& kind : kinds_) {
    if (kind->name() == name) return *kind;
  }
  throw data::Error(input, "unknown cluster '" + name + "' (known: " + names() + ")");
}

std::string ClusterKinds::names() const {
  std::string names;
  for (const std::unique_ptr<ClusterKind>& kind : kinds_) names += (names.empty() ? "" : ", ") + kind->name();
  return names;
}

}  // namespace millrace::cluster_adapter
