// Test helpers for the data module: a fresh temporary directory per test, whole-file reads,
// and small sample records.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>

#include "data/records.h"
#include "data/trace_store.h"

namespace millrace::data::testing {

class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("millrace-" + std::string(info->test_suite_name()) + "-" + info->name() + "-" +
             std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

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
