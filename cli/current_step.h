// What the running command is doing ("cutting 0:99 into ranges", "simulating run 3"), so that
// when memory runs out all the same main() says which command and at what step, not a bare
// std::bad_alloc. A step lives as long as its scope and the innermost one counts, except that a
// scope left by an exception keeps its step, for the handler to name.
#pragma once

#include <string>

namespace millrace::cli {

class CurrentStep {
 public:
  explicit CurrentStep(std::string what);
  ~CurrentStep();
  CurrentStep(const CurrentStep&) = delete;
  CurrentStep& operator=(const CurrentStep&) = delete;

  // The innermost live step of this thread ("" when none).
  static const std::string& now();

 private:
  std::string previous_;
  int exceptions_;  // exceptions in flight when the step began
};

}  // namespace millrace::cli
