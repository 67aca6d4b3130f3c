// Every input fuzzing found a crash with (tests/fuzz_regressions/TARGET/NAME, see
// fuzz/README.md) fed through the same entry point as the fuzz target, in the normal build:
// each must now be accepted or refused with a data::Error naming the problem, and never break
// the entry point's contract (fuzz/entry_points.h) or throw anything else.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "data/error.h"
#include "fuzz/entry_points.h"

namespace millrace::fuzz {
namespace {

namespace fs = std::filesystem;

const fs::path kRegressions = fs::path(MILLRACE_SOURCE_DIR) / "tests" / "fuzz_regressions";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(FuzzRegressions, EveryFolderNamesAFuzzTarget) {
  for (const auto& dir : fs::directory_iterator(kRegressions)) {
    if (!dir.is_directory()) continue;
    EXPECT_NO_THROW(entry_point(dir.path().filename().string())) << dir.path();
  }
}

TEST(FuzzRegressions, KeptInputsAreAcceptedOrRefusedCleanly) {
  const InputFolder folder;
  int inputs = 0;
  for (const std::string& target : entry_point_names()) {
    if (!fs::is_directory(kRegressions / target)) continue;
    for (const auto& file : fs::directory_iterator(kRegressions / target)) {
      ++inputs;
      const std::string input = read_file(file.path());
      try {
        entry_point(target)(input, folder);
      } catch (const data::Error& e) {
        EXPECT_FALSE(e.problem().empty()) << file.path();
      } catch (const std::exception& e) {
        ADD_FAILURE() << file.path() << ": " << e.what();
      }
    }
  }
  EXPECT_GT(inputs, 0);
}

}  // namespace
}  // namespace millrace::fuzz
