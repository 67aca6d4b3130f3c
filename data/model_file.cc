#include "data/model_file.h"

#include <fstream>

#include "data/cost_model.h"
#include "data/error.h"
#include "data/importers/json_input.h"
#include "data/small_file.h"

namespace millrace::data {

nlohmann::json read_model_json(const std::string& path) {
  return importers::parse_json_text(read_small_file(path, "cost model", kMaxConfigBytes), path);
}

void write_model_file(const std::string& path, const CostModel* cost, const ClusterModel* cluster,
                      const nlohmann::json& fit) {
  nlohmann::json json =
      cost != nullptr ? cost->to_json() : nlohmann::json{{"format", kClusterModelFormat}, {"version", kModelFileVersion}};
  if (cluster != nullptr) json["cluster"] = cluster->to_json();
  if (!fit.is_null()) json["fit"] = fit;
  std::ofstream out(path);
  if (!out) throw Error(path, "cannot open for writing");
  out << json.dump(2) << "\n";
  if (!out) throw Error(path, "write failed");
}

std::optional<ClusterModel> load_cluster_model(const std::string& path) {
  const nlohmann::json json = read_model_json(path);
  const bool known = json.is_object() && json.contains("format") &&
                     (json.at("format") == kCostModelFormat || json.at("format") == kClusterModelFormat);
  if (!known) throw Error(path, "not a millrace model file (format is neither 'millrace-cost-model' nor 'millrace-cluster-model')");
  if (!json.contains("cluster")) return std::nullopt;
  return ClusterModel::from_json(json.at("cluster"), path);
}

}  // namespace millrace::data
