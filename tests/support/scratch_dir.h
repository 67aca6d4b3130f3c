// The one scratch directory of the tests: a fresh directory per test, unique to the process
// (mkdtemp under the system's temporary directory, named after the test for whoever looks), and
// removed with everything in it when the test ends. Fixed names (/tmp/millrace_<fixture>_<test>)
// let two test runs at once (two checkouts, `ctest -j2` in each) delete each other's stores.
#pragma once

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

#include <gtest/gtest.h>

namespace millrace::test_support {

class ScratchDir {
 public:
  // millrace_<suite>_<test>_XXXXXX (the running test's names; `label` instead when given).
  explicit ScratchDir(const std::string& label = running_test()) {
    std::string name = "millrace_";
    for (char c : label) name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_';
    std::string pattern = (std::filesystem::temp_directory_path() / (name + "_XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
    }
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // A path inside it, as a string (a store, a model file, a sub-directory not yet made).
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  static std::string running_test() {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    if (info == nullptr) return "test";
    return std::string(info->test_suite_name()) + "_" + info->name();
  }

  std::filesystem::path path_;
};

}  // namespace millrace::test_support
