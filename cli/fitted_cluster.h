// The cluster a simulation draws from when given a model file: its fitted cluster
// (data/model_file.h, fitted by `millrace fit`), less the parts a typed-in option overrides
// (--startup-latency replaces the fitted start-up, --fail-prob the fitted failures; a node pools
// file's provision_delay replaces the fitted node provisioning for its pool, and its
// interruption_rate the fitted rate for its spot pool, sim/node_pools.h),
// and a line saying which values came from where, for the command's output.
#pragma once

#include <memory>
#include <string>

#include "data/cluster_model.h"

namespace millrace::cli {

struct ClusterSource {
  std::shared_ptr<const data::ClusterModel> fitted;  // null: the model file has no cluster
  std::string text;  // e.g. "cluster: fitted in model.json (runs a): placement residual, start-up; typed in: failures (--fail-prob)"
};

// No model path: no fitted cluster, everything typed in. Throws data::Error naming the file for
// one that cannot be read or whose cluster section is malformed.
ClusterSource cluster_source(const std::string& model_path, bool startup_given, bool fail_prob_given);

}  // namespace millrace::cli
