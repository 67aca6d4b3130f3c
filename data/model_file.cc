#include "data/model_file.h"

#include "data/cost_model.h"
#include "data/error.h"
#include "data/importers/json_input.h"
#include "data/json_output.h"
#include "data/small_file.h"
#include "data/whole_file.h"

namespace millrace::data {

nlohmann::json read_model_json(const std::string& path) {
  return importers::parse_json_text(read_small_file(path, "cost model", kMaxModelBytes), path);
}

void write_model_file(const std::string& path, const CostModel* cost, const ClusterModel* cluster,
                      const nlohmann::json& fit) {
  nlohmann::json json =
      cost != nullptr ? cost->to_json() : nlohmann::json{{"format", kClusterModelFormat}, {"version", kModelFileVersion}};
  if (cluster != nullptr) json["cluster"] = cluster->to_json();
  if (!fit.is_null()) json["fit"] = fit;
  const std::string text = json_text(json, 2, path) + "\n";
  if (text.size() > kMaxModelBytes) {
    throw Error(path, "the model would be " + std::to_string(text.size()) + " bytes, over the " +
                          std::to_string(kMaxModelBytes) + " that readers accept; fit fewer bins (--bins N); the file "
                          "is left as it was");
  }
  write_whole_file(path, text);
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
