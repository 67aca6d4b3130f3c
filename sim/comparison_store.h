// Comparisons kept in the trace store (tables comparisons and comparison_rows, data/schema.sql
// migration 2) so the notebooks can read what `millrace compare` and `millrace plan` found.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "data/records.h"
#include "data/trace_store.h"
#include "sim/comparison.h"

namespace millrace::sim {

struct ComparisonHeader {
  std::string kind;        // "compare" or "plan"
  std::string model;       // the cost model file
  data::Range span;
  nlohmann::json parameters = nlohmann::json::object();
};

// Writes the header and every row in one transaction; returns the comparison id.
std::int64_t record_comparison(data::TraceStore& store, const ComparisonHeader& header,
                               const Comparison& comparison);

}  // namespace millrace::sim
