#include "cli/digested_model.h"

#include "cli/experiment_file.h"
#include "data/importers/json_input.h"
#include "data/model_file.h"
#include "data/small_file.h"

namespace millrace::cli {

DigestedModel read_digested_model(const std::string& path) {
  const std::string text = data::read_small_file(path, "cost model", data::kMaxModelBytes);
  return {data::CostModel::from_json(data::importers::parse_json_text(text, path), path), sha256_hex(text)};
}

}  // namespace millrace::cli
