// The setting of the end-to-end tests of compare and plan around them (experiment files, progress
// lines): a fresh directory per test holding an empty trace store and the synthetic cost model
// of tests/sim/comparison_test.cc (1 s/unit on [0, 800), 4 s/unit on [800, 1000)).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "data/cost_model.h"
#include "data/trace_store.h"
#include "tests/support/scratch_dir.h"

namespace millrace::cli_test {

class CompareFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = path("s.db");
    model_ = path("model.json");
    data::TraceStore::open(store_);
    data::CostModel({{{0, 800}, 0, 1e6}, {{800, 200}, 0, 4e6}}, "units", "synthetic").save(model_);
  }

  std::string path(const std::string& name) const { return scratch_.file(name); }

  test_support::ScratchDir scratch_;
  std::string store_;
  std::string model_;
};

}  // namespace millrace::cli_test
