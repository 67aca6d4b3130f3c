// The one error type of millrace: it names the input (a file, a run, a policy name, a URL)
// and the problem, so the CLI can print one clear line and exit non-zero.
#pragma once

#include <stdexcept>
#include <string>

namespace millrace::data {

class Error : public std::runtime_error {
 public:
  Error(std::string input, std::string problem)
      : std::runtime_error(input + ": " + problem), input_(std::move(input)), problem_(std::move(problem)) {}

  const std::string& input() const { return input_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string input_;
  std::string problem_;
};

// A trace store another process holds locked for writing: the write may succeed later.
class StoreBusy : public Error {
 public:
  using Error::Error;
};

// A trace store whose disk (or quota) is full: SQLite's SQLITE_FULL, or any of its I/O errors
// caused by ENOSPC/EDQUOT (creating the WAL index on a full disk is a "disk I/O error").
class StoreFull : public Error {
 public:
  using Error::Error;
};

}  // namespace millrace::data
