// What `millrace --version` prints: the project's version (CMakeLists.txt's project()) and, when
// the source was a git checkout as the build was configured, `git describe` of it then.
#pragma once

#include <string>

namespace millrace::cli {

// "millrace 0.1.0", then "source: git 2e6c450 (when the build was configured)" when there is one.
std::string version_text();

}  // namespace millrace::cli
