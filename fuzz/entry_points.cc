#include "fuzz/entry_points.h"

#include <map>
#include <optional>

#include "data/error.h"

namespace millrace::fuzz {

namespace {

const std::map<std::string, EntryPoint>& registry() {
  static const std::map<std::string, EntryPoint> all = {
      {"import_csv", import_csv},
      {"import_json", import_json},
      {"import_swf", import_swf},
      {"import_stellar_log", import_stellar_log},
      {"import_stellar_csv", import_stellar_csv},
      {"import_stellar_metrics", import_stellar_metrics},
      {"import_stellar_status", import_stellar_status},
      {"import_ethereum", import_ethereum},
      {"import_profile", import_profile},
      {"range_text", range_text},
      {"preset_span", preset_span},
      {"ranges_file", ranges_file},
      {"cost_model_json", cost_model_json},
      {"kubeconfig", kubeconfig},
      {"job_template", job_template},
      {"lease_request", lease_request},
      {"sweep_shard", sweep_shard},
  };
  return all;
}

}  // namespace

void run_all(std::initializer_list<std::function<void()>> calls) {
  std::optional<data::Error> refused;
  for (const auto& call : calls) {
    try {
      call();
    } catch (const data::Error& e) {
      if (!refused) refused = e;
    }
  }
  if (refused) throw *refused;
}

std::vector<std::string> entry_point_names() {
  std::vector<std::string> names;
  for (const auto& [name, entry] : registry()) names.push_back(name);
  return names;
}

EntryPoint entry_point(const std::string& name) {
  auto it = registry().find(name);
  if (it == registry().end()) throw std::invalid_argument("no fuzz entry point " + name);
  return it->second;
}

}  // namespace millrace::fuzz
