// Test helpers for the data module: a fresh temporary directory per test, whole-file reads,
// and small sample records.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "data/records.h"
#include "data/trace_store.h"
#include "tests/support/scratch_dir.h"

namespace millrace::data::testing {

// A fresh scratch directory per test, unique to the process (tests/support/scratch_dir.h).
using TempDir = test_support::ScratchDir;

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline std::vector<std::int64_t> row_counts(const TraceStore& store) {
  std::vector<std::int64_t> counts;
  for (const char* t : {"runs", "items", "item_deps", "attempts", "profiles", "profile_bins"}) {
    counts.push_back(store.count_rows(t));
  }
  return counts;
}

}  // namespace millrace::data::testing
