// The model file `millrace fit` writes: one JSON object holding the cost model of the work
// (data/cost_model.h; format "millrace-cost-model"), the cluster model under "cluster"
// (data/cluster_model.h) and the fit's figures under "fit". Runs without ranges teach the cluster
// alone: their file has format "millrace-cluster-model" and no cost model, and reading a cost
// model from it is refused with a message saying so.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "data/cluster_model.h"

namespace millrace::data {

class CostModel;

inline constexpr const char* kCostModelFormat = "millrace-cost-model";
inline constexpr const char* kClusterModelFormat = "millrace-cluster-model";
inline constexpr int kModelFileVersion = 1;
// The largest model file readers accept, and so the largest one `fit` writes.
inline constexpr std::size_t kMaxModelBytes = 8 << 20;

// The file's JSON; throws Error naming the path when it cannot be read or is not JSON.
nlohmann::json read_model_json(const std::string& path);

// Writes the cost model (or none: a cluster-only file), the cluster model (or none) and `fit`
// (or null) to `path`, whole or not at all (data/whole_file.h); throws Error naming the path when
// it cannot be written or would be larger than kMaxModelBytes (what no reader would accept).
void write_model_file(const std::string& path, const CostModel* cost, const ClusterModel* cluster,
                      const nlohmann::json& fit);

// The file's cluster model, nullopt when it has none; throws Error naming the path and the field
// for a malformed "cluster" section or a file that is no millrace model.
std::optional<ClusterModel> load_cluster_model(const std::string& path);

}  // namespace millrace::data
