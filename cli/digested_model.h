// A cost model file read once: the model and the hex SHA-256 of the very bytes it was parsed
// from, as a comparison's parameters keep it ("model_sha256"), so a run of what it chose can tell
// whether the file is still that model (cli/stored_plan.h). One read gives both: a file replaced
// between a hash and a load can neither be stored under the other's hash nor run after the other
// passed the check.
#pragma once

#include <string>

#include "data/cost_model.h"

namespace millrace::cli {

struct DigestedModel {
  data::CostModel model;
  std::string sha256;  // empty for a model fitted on the fly, which has no file
};

// Throws data::Error naming `path` when it cannot be read or holds no cost model.
DigestedModel read_digested_model(const std::string& path);

}  // namespace millrace::cli
